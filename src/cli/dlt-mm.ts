#!/usr/bin/env -S node --max-semi-space-size=16
/** Entry point of `dlt-mm`; runs on Node 24 (type stripping), wiring the real process into the commands. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { dirname } from 'node:path';

// Compiled code is cached between runs (in the system's temporary directory; where it cannot be written,
// nothing is cached), which halves the start-up of the modules: a restarted bot is ready sooner. The
// commands load afterwards, so that they are cached too.
enableCompileCache();
const { main } = await import('./main.ts');

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
