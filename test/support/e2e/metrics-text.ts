/** The Prometheus text format the bot serves, read back into samples for assertions. */

export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, '$1');
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** Samples of one series whose labels include `labels`. */
export function series(
  samples: readonly MetricSample[],
  name: string,
  labels: Record<string, string> = {},
): MetricSample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** Sum of the matching samples (0 when there is none: a counter never incremented is not exported). */
export function total(samples: readonly MetricSample[], name: string, labels: Record<string, string> = {}): number {
  return series(samples, name, labels).reduce((n, s) => n + s.value, 0);
}
