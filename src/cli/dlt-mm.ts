#!/usr/bin/env -S node --max-semi-space-size=16
/** Entry point of `dlt-mm`; runs on Node 24 (type stripping), wiring the real process into the commands. */
import { enableCompileCache } from 'node:module';
import { processIo } from './process-io.ts';

// Compiled code is cached between runs (in the system's temporary directory; where it cannot be written,
// nothing is cached), which halves the start-up of the modules: a restarted bot is ready sooner. The
// commands load afterwards, so that they are cached too.
enableCompileCache();
const { main } = await import('./main.ts');

const code = await main(process.argv.slice(2), processIo(process.env, process.cwd()));
process.exitCode = code;
