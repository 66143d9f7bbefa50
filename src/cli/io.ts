/** What a command may touch; the entry point passes the real process, tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readFile: (path: string) => string;
  readonly writeFile: (path: string, text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export const EXIT_OK = 0;
/** The input was understood and refused (a rule broken, a config problem). */
export const EXIT_REFUSED = 1;
/** The command line itself is wrong. */
export const EXIT_USAGE = 2;
