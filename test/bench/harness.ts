/**
 * A tiny benchmark harness: measure alternatives side by side in one run, interleaved in rounds so that
 * machine noise hits all of them alike, and report medians and ratios (never absolute pass/fail times).
 */
export interface Case {
  readonly name: string;
  /** One unit of work; return something so the engine cannot drop it. */
  readonly fn: () => unknown;
}

export interface Measured {
  readonly name: string;
  readonly opsPerSecond: number;
  readonly nsPerOp: number;
}

export function compare(cases: readonly Case[], { rounds = 7, minMs = 150 } = {}): Measured[] {
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  // Warm up every case and find a batch size that takes about minMs.
  const batch = new Map<string, number>();
  for (const c of cases) {
    let n = 1;
    for (;;) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) c.fn();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (ms >= minMs / 4 || n > 1e8) {
        batch.set(c.name, Math.max(1, Math.round((n * minMs) / Math.max(ms, 0.001))));
        break;
      }
      n *= 4;
    }
  }
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const n = batch.get(c.name) as number;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) c.fn();
      const ns = Number(process.hrtime.bigint() - t0);
      samples.get(c.name)?.push(ns / n);
    }
  }
  return cases.map((c) => {
    const s = (samples.get(c.name) as number[]).toSorted((a, b) => a - b);
    const median = s[Math.floor(s.length / 2)] as number;
    return { name: c.name, nsPerOp: median, opsPerSecond: 1e9 / median };
  });
}

export interface Row {
  readonly benchmark: string;
  readonly measure: string;
  readonly value: string;
  readonly baseline?: string;
  readonly ratio?: string;
}

export function printTable(rows: readonly Row[]): void {
  const headers = ['benchmark', 'measure', 'value', 'baseline', 'ratio'] as const;
  const cells = rows.map((r) => headers.map((h) => r[h] ?? ''));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (cols: readonly string[]) => `| ${cols.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
