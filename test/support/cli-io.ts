/** A command line's io for a test: files under `cwd` on disk, everything written kept in `out`, no environment. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

/** What a command wrote, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `dlt-mm <argv>` in this process with `io` for files and environment, keeping what it writes. */
export async function runCli(argv: string[], io: Omit<CliIo, 'stdout' | 'stderr'>): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { ...io, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

export function fileCliIo(cwd: string, out: string[]): CliIo {
  return {
    stdout: (t) => void out.push(t),
    stderr: (t) => void out.push(t),
    readFile: (p) => readFileSync(p, 'utf8'),
    writeFile: (p, t) => {
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, t);
    },
    env: {},
    cwd,
  };
}
