/**
 * Child-process entry of the chain A node: runs Hardhat's command line in this process (`node` task, EDR
 * inside), with the arguments it was given. It exits as soon as its stdin closes, which happens when the
 * parent stops it or dies, so a crashed test run or sandbox never leaves a node behind.
 *
 * Usage (by `startEvmNode`): node node-host.ts --config <file> node --port <p> --hostname 127.0.0.1
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));

// The package exports only its library entry; the command line sits beside it.
const cli = join(dirname(createRequire(import.meta.url).resolve('hardhat')), 'cli.js');
process.argv = [process.argv[0] as string, cli, ...process.argv.slice(2)];
await import(pathToFileURL(cli).href);
