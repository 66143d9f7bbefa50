/** The real process as a command sees it: its output streams, the file system, its environment and directory. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CliIo } from './io.ts';

export function processIo(env: Readonly<Record<string, string | undefined>>, cwd: string): CliIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    readFile: (p) => readFileSync(p, 'utf8'),
    writeFile: (p, t) => {
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, t);
    },
    env,
    cwd,
  };
}
