/** `npm run bench`: runs every `*.bench.ts` here (or those named on the command line) and prints one table. */
import { readdirSync } from 'node:fs';
import { printTable, type Row } from './harness.ts';

interface BenchModule {
  readonly title: string;
  readonly run: () => Row[] | Promise<Row[]>;
}

const only = process.argv.slice(2);
const dir = new URL('./', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .toSorted();

const rows: Row[] = [];
for (const file of files) {
  const mod = (await import(new URL(file, dir).href)) as BenchModule;
  process.stderr.write(`running ${mod.title} ...\n`);
  rows.push(...(await mod.run()));
}
console.log(`node ${process.version}, ${new Date().toISOString()}`);
printTable(rows);
