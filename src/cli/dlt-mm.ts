#!/usr/bin/env -S node --max-semi-space-size=16
/** Entry point of `dlt-mm`; runs on Node 24 (type stripping), wiring the real process into the commands. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { main } from './main.ts';

const code = await main(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  readFile: (p) => readFileSync(p, 'utf8'),
  writeFile: (p, t) => {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, t);
  },
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
