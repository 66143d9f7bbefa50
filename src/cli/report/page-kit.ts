/** What the report page's parts share: HTML escaping, the venue's clock, durations, percentages, money. */
export const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const berlinTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Berlin',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
export const berlinDateTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Berlin',
  dateStyle: 'medium',
  timeStyle: 'medium',
});

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(2)} %`);

export function money(s: string | undefined | null): string {
  if (s === undefined || s === null) return '–';
  const n = Number(s);
  return Number.isFinite(n) ? n.toFixed(4) : s;
}
