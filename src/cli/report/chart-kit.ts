/** What every chart of the report shares: its size, the time axis on the venue's clock, and thinning. */
export const WIDTH = 820;
export const HEIGHT = 170;
export const MAX_POINTS = 1_500;
export const STATE_COLOURS = {
  present: '#2e9e4f',
  absent: '#d9d9d9',
  halted: '#f28e2b',
  exception: '#8a5ac2',
  closed: '#9aa4ad',
  down: '#d62728',
  unobserved: '#ffffff',
};

export function thin<T>(rows: readonly T[]): T[] {
  if (rows.length <= MAX_POINTS) return [...rows];
  const step = Math.ceil(rows.length / MAX_POINTS);
  const out = rows.filter((_, i) => i % step === 0);
  const last = rows.at(-1);
  if (last !== undefined && out.at(-1) !== last) out.push(last);
  return out;
}

/** The x channel: Berlin wall time on a UTC scale; in a layered chart only the first layer sets the scale. */
export function timeAxis(domain: readonly [number, number], withScale = true) {
  const span = domain[1] - domain[0];
  return {
    field: 't',
    type: 'temporal' as const,
    title: 'Europe/Berlin',
    // domainMin/Max rather than domain: a rect's x2 shares the scale, and an explicit domain conflicts with it.
    ...(withScale ? { scale: { type: 'utc' as const, domainMin: domain[0], domainMax: domain[1] } } : {}),
    axis: { format: span < 3_600_000 ? '%H:%M:%S' : '%H:%M', labelOverlap: true },
  };
}

/** The title is the figure's caption in the page, so the chart itself carries none. */
export const base = (title: string) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  description: title,
  width: WIDTH,
  height: HEIGHT,
  background: 'white',
  config: { font: 'Helvetica, Arial, sans-serif', view: { stroke: '#ddd' } },
});
