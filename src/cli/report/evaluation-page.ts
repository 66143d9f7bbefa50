/** The report page's PnL attribution and markout tables of one pair. */
import type { PairDay } from './data.ts';
import { berlinTime, esc, money } from './page-kit.ts';

const horizon = (ms: number) =>
  ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
const bp = (s: string | null) => (s === null ? '–' : Number(s).toFixed(2));

export function attributionTable(p: PairDay): string {
  const a = p.evaluation.attribution;
  const rows = [
    ['Spread capture', a.spreadCapture, 'each fill against the value at its moment'],
    ['+ Inventory result', a.inventory, 'the position revalued as the value moved after each fill'],
    ['− Commissions', a.commissions, "the venue's commissions on our fills"],
    ['− Chain fees', a.chainFees, "the chains' native fees at evaluation.chainFeeRate"],
    ['= PnL marked to the value', a.total, ''],
  ];
  const body = rows
    .map(
      ([k, v, why]) =>
        `<tr><td>${esc(k!)}</td><td class="num" title="${esc(v!)}">${money(v)}</td><td class="exact">${esc(v!)}</td><td><small>${esc(why!)}</small></td></tr>`,
    )
    .join('');
  const opening =
    a.openingValue === null
      ? `position ${esc(a.openingPosition)} at the start`
      : `position ${esc(a.openingPosition)} at the start, valued at ${esc(a.openingValue)}`;
  const unvalued =
    a.unvalued === 0 ? '' : ` ${a.unvalued} fill(s) had no recorded value at the fill and count at their own price.`;
  return `<h3>PnL attribution</h3><table class="attribution"><thead><tr><th>Part</th><th>Quote units</th><th>Exact</th><th></th></tr></thead><tbody>${body}</tbody></table>
<p class="note">Marked to the fair value (else the mid of others' book): ${opening}; position ${esc(a.closingPosition)} at the end, valued at ${esc(a.closingValue ?? "its fills' values")}. The parts add up exactly.${esc(unvalued)}</p>`;
}

export function markoutTables(p: PairDay): string {
  const e = p.evaluation;
  if (e.markouts.length === 0) return '<h3>Markouts</h3><p>No fill of the day was valued at a markout horizon.</p>';
  const horizons = [...new Set(e.markouts.map((m) => m.horizonMs))];
  const cellOf = (h: number, side: string) => {
    const m = e.markouts.find((x) => x.horizonMs === h && x.side === side);
    return m === undefined
      ? '<td class="num">–</td>'
      : `<td class="num" title="${m.fills} fill(s), ${esc(m.quote)} quote">${bp(m.bps)}</td>`;
  };
  const bySide = `<table class="markouts"><thead><tr><th>Side</th>${horizons.map((h) => `<th>${horizon(h)}</th>`).join('')}</tr></thead><tbody>${(['buy', 'sell', 'all'] as const).map((side) => `<tr><td>${side}</td>${horizons.map((h) => cellOf(h, side)).join('')}</tr>`).join('')}</tbody></table>`;
  const levels = [...new Set(e.levels.map((l) => l.level))].toSorted((a, b) => a - b);
  const byLevel =
    levels.length === 0
      ? ''
      : `<table class="markout-levels"><thead><tr><th>Ladder level</th>${horizons.map((h) => `<th>${horizon(h)}</th>`).join('')}</tr></thead><tbody>${levels.map((l) => `<tr><td>${l}</td>${horizons.map((h) => `<td class="num">${bp(e.levels.find((x) => x.horizonMs === h && x.level === l)?.bps ?? null)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const worst =
    e.worst.length === 0
      ? ''
      : `<h3>Worst fills at ${horizon(e.worst[0]!.horizonMs)}</h3><table class="worst"><thead><tr><th>Time</th><th>Side</th><th>Level</th><th>Quantity</th><th>Price</th><th>Value at the fill</th><th>Value after</th><th>Markout</th><th>bp</th></tr></thead><tbody>${e.worst.map((w) => `<tr><td>${berlinTime.format(w.atMs)}</td><td>${w.side}</td><td class="num">${w.level ?? '–'}</td><td class="num">${esc(w.quantity)}</td><td class="num">${esc(w.price)}</td><td class="num">${esc(w.valueAtFill)}</td><td class="num">${esc(w.valueAfter)}</td><td class="num">${money(w.markout)}</td><td class="num">${bp(w.markoutBps)}</td></tr>`).join('')}</tbody></table>`;
  return `<h3>Markouts (volume-weighted, bp of the traded value)</h3>${bySide}${byLevel}${worst}`;
}
