/** A command line's io for a test: files under `cwd` on disk, everything written kept in `out`, no environment. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CliIo } from '../../src/cli/io.ts';

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
