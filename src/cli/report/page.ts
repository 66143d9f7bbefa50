/**
 * The report's files: one self-contained HTML page (inline CSS and SVG, no script, nothing fetched), the same
 * data as JSON, and CSV tables (samples, compliance, fills, transactions) for spreadsheets.
 */
import type { RenderedChart } from './charts.ts';
import type { DayReport, PairDay } from './data.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const berlinTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Berlin',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const berlinDateTime = new Intl.DateTimeFormat('en-GB', {
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

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(2)} %`);

function money(s: string | undefined | null): string {
  if (s === undefined || s === null) return '–';
  const n = Number(s);
  return Number.isFinite(n) ? n.toFixed(4) : s;
}

function complianceTable(report: DayReport): string {
  const rows = report.pairs.filter((p) => p.compliance !== null);
  if (rows.length === 0) return '<p>No pair has market-making obligations configured.</p>';
  const body = rows
    .map((p) => {
      const c = p.compliance!;
      const verdict = c.met === null ? 'no continuous trading' : c.met ? 'met' : 'missed';
      const cls = c.met === null ? '' : c.met ? 'ok' : 'bad';
      const breaches =
        p.breaches.length === 0
          ? '–'
          : p.breaches
              .map(
                (b) =>
                  `${esc(b.limit)} at ${berlinTime.format(b.startedMs)}${b.endedMs === null ? '' : `–${berlinTime.format(b.endedMs)}`}`,
              )
              .join('<br>');
      return `<tr data-pair="${esc(p.pairId)}"><td>${esc(p.symbol)}<br><small>${esc(p.pairId)}</small></td><td>${esc(c.maxSpread)}</td><td>${esc(c.minSize)}</td><td>${c.maxSizeRatio}</td><td class="num">${pct(c.target)}</td><td class="num presence">${pct(c.presence)}</td><td class="${cls}">${verdict}</td><td class="num">${duration(c.continuousMs)}</td><td class="num">${duration(c.presentMs)}</td><td class="num">${duration(c.downMs)}</td><td class="num">${duration(c.haltedMs)}</td><td class="num">${duration(c.exceptionMs)}</td><td>${c.guard ? 'on' : 'measured only'}</td><td>${breaches}</td></tr>`;
    })
    .join('\n');
  return `<table class="compliance"><thead><tr><th>Pair</th><th>Max spread</th><th>Min size</th><th>Size ratio</th><th>Target</th><th>Presence</th><th>Day</th><th>Continuous trading</th><th>Present</th><th>Of which down</th><th>Halted (excluded)</th><th>Exceptions (excluded)</th><th>Guard</th><th>Breaches forced by a limit</th></tr></thead><tbody>${body}</tbody></table>
<p class="note">Presence is the share of continuous trading time in which a bid and an ask of ours, both on the book as the chain shows them, met every term. Halts, closed hours and declared exceptional circumstances are left out; scheduled time while the bot was not running counts as continuous trading without us.</p>`;
}

function figure(c: RenderedChart): string {
  return `<figure class="chart" id="chart-${esc(c.id)}" data-chart="${esc(c.id)}"><figcaption>${esc(c.title)}</figcaption>${c.svg}</figure>`;
}

function pairSection(p: PairDay, charts: readonly RenderedChart[]): string {
  const mine = charts.filter((c) => c.id.endsWith(`-${p.pairId}`));
  const end = p.end;
  const startTotal =
    p.start === null ? null : Number(p.start.realised) + Number(p.start.unrealised) - Number(p.start.fees);
  const endTotal = end === null ? null : Number(end.realised) + Number(end.unrealised) - Number(end.fees);
  const figures = [
    ['Chain', p.chain === 'evm' ? 'chain A (EVM)' : 'chain B (Soroban)'],
    ['PnL at the end (total)', endTotal === null ? '–' : endTotal.toFixed(4)],
    ['PnL over the day', endTotal === null || startTotal === null ? '–' : (endTotal - startTotal).toFixed(4)],
    ['Realised / unrealised / fees', `${money(end?.realised)} / ${money(end?.unrealised)} / ${money(end?.fees)}`],
    ['Position at the end', money(end?.position)],
    ['Fills', String(p.fills.length)],
    [
      'Orders placed / rested / filled / cancelled / rejected',
      `${p.orders.placed} / ${p.orders.rested} / ${p.orders.filled} / ${p.orders.cancelled} / ${p.orders.rejected}`,
    ],
  ];
  return `<section class="pair" id="pair-${esc(p.pairId)}"><h2>${esc(p.symbol)} <small>${esc(p.pairId)}</small></h2>
<dl class="figures">${figures.map(([k, v]) => `<dt>${esc(k as string)}</dt><dd>${esc(v as string)}</dd>`).join('')}</dl>
${attributionTable(p)}${markoutTables(p)}
${mine.map(figure).join('\n')}</section>`;
}

const horizon = (ms: number) =>
  ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
const bp = (s: string | null) => (s === null ? '–' : Number(s).toFixed(2));

function attributionTable(p: PairDay): string {
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

function markoutTables(p: PairDay): string {
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

function transactionsTable(report: DayReport): string {
  if (report.transactions.length === 0) return '<p>No transactions were sent this day.</p>';
  const rows = report.transactions
    .map(
      (g) =>
        `<tr><td>${g.chain === 'evm' ? 'chain A' : 'chain B'}</td><td><small>${esc(g.wallet)}</small></td><td>${esc(g.kind)}</td><td class="num">${g.sent}</td><td class="num">${g.included}</td><td class="num">${g.failed}</td><td class="num">${g.other}</td><td class="num">${esc(g.feeNative)}</td><td class="num">${esc(g.fee)}</td></tr>`,
    )
    .join('\n');
  const totals = (['evm', 'wasm'] as const).flatMap((chain) => {
    const gs = report.transactions.filter((g) => g.chain === chain);
    if (gs.length === 0) return [];
    const fee = gs.reduce((n, g) => n + BigInt(g.fee), 0n);
    return [
      `${chain === 'evm' ? 'chain A' : 'chain B'}: ${gs.reduce((n, g) => n + g.sent, 0)} sent, fees ${fee.toString()} ${chain === 'evm' ? 'wei' : 'stroops'}`,
    ];
  });
  return `<table><thead><tr><th>Chain</th><th>Wallet</th><th>Kind</th><th>Sent</th><th>Included</th><th>Failed on chain</th><th>Not included</th><th>Fees (native token)</th><th>Fees (wei / stroops)</th></tr></thead><tbody>${rows}</tbody></table><p class="note">${esc(totals.join('; '))}. A transaction's fee is what the chain charged once it was included (chain A: gas used times the effective gas price; chain B: the fee charged).</p>`;
}

function rejectionsTable(report: DayReport): string {
  if (report.rejections.length === 0) return '<p>None of our orders was rejected this day.</p>';
  return `<table><thead><tr><th>Pair</th><th>Reason</th><th>Orders</th></tr></thead><tbody>${report.rejections.map((r) => `<tr><td>${esc(r.pairId)}</td><td>${esc(r.reason)}</td><td class="num">${r.count}</td></tr>`).join('')}</tbody></table>`;
}

function windowsList(report: DayReport): string {
  const windows =
    report.windows.length === 0
      ? '<p>No exceptional-circumstance or stressed-market window was declared.</p>'
      : `<ul>${report.windows.map((w) => `<li>#${w.id} ${esc(w.kind)} (${esc(w.pairId ?? 'all pairs')}): ${berlinDateTime.format(w.fromMs)} – ${w.toMs === null ? 'open-ended' : berlinDateTime.format(w.toMs)}: ${esc(w.reason)} <small>(${esc(w.source)})</small></li>`).join('')}</ul>`;
  const runs =
    report.runs.length === 0
      ? '<p>The bot did not run this day.</p>'
      : `<ul>${report.runs.map((r) => `<li>${berlinDateTime.format(r.from)} – ${berlinDateTime.format(r.to)} (${duration(r.to - r.from)})</li>`).join('')}</ul>`;
  return `<h3>Declared windows</h3>${windows}<h3>Runs of the bot</h3>${runs}`;
}

const CSS = `body{font:14px/1.45 Helvetica,Arial,sans-serif;margin:24px auto;max-width:1180px;color:#222;padding:0 16px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ccc;padding-bottom:4px}h2 small{font-weight:normal;color:#777;font-size:12px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #d5d5d5;padding:4px 7px;text-align:left;vertical-align:top}th{background:#f3f4f6}
td.num{text-align:right;font-variant-numeric:tabular-nums}td.ok{background:#e3f5e8;font-weight:bold}td.bad{background:#fbe3e3;font-weight:bold}
.note{color:#555;font-size:12px;max-width:1000px}figure.chart{margin:14px 0;padding:0}figcaption{font-weight:bold;font-size:13px;margin-bottom:2px}
dl.figures{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:6px 0 10px}dt{color:#555}dd{margin:0;font-variant-numeric:tabular-nums}
svg{max-width:100%;height:auto}td.exact{font:11px/1.3 monospace;color:#777}h3{font-size:15px;margin:16px 0 4px}`;

export function reportHtml(
  report: DayReport,
  charts: readonly RenderedChart[],
  files: { json: string; csv: readonly string[] },
): string {
  const global = charts.filter((c) => c.id === 'transactions' || c.id === 'rejections');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>dlt-mm trading day ${esc(report.day)}</title><style>${CSS}</style></head>
<body>
<header><h1>Trading day ${esc(report.day)}</h1>
<p>Times are Europe/Berlin. From ${berlinDateTime.format(report.from)} to ${berlinDateTime.format(report.to)}; made ${berlinDateTime.format(report.generatedMs)}. Calendar: ${report.calendar.enabled ? `${esc(report.calendar.open)}–${esc(report.calendar.close)} on trading days` : 'off (the venue says when it trades)'}.</p></header>
<section id="compliance"><h2>Market-making obligations</h2>${complianceTable(report)}</section>
${report.pairs.map((p) => pairSection(p, charts)).join('\n')}
<section id="transactions"><h2>Transactions sent and their chain cost</h2>${transactionsTable(report)}${global
    .filter((c) => c.id === 'transactions')
    .map(figure)
    .join('')}</section>
<section id="rejections"><h2>Rejections by reason</h2>${rejectionsTable(report)}${global
    .filter((c) => c.id === 'rejections')
    .map(figure)
    .join('')}</section>
<section id="windows"><h2>Exceptional circumstances and runs</h2>${windowsList(report)}</section>
<footer class="note"><p>The same data: ${esc(files.json)}, ${files.csv.map(esc).join(', ')}.</p></footer>
</body></html>
`;
}

function cell(v: string | number | boolean | null): string {
  const s = v === null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csv(rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null>>): string {
  return `${rows.map((r) => r.map(cell).join(',')).join('\n')}\n`;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function reportCsv(
  report: DayReport,
): Record<'samples' | 'compliance' | 'fills' | 'transactions' | 'markouts' | 'attribution', string> {
  return {
    markouts: csv([
      ['pair', 'horizon_ms', 'side', 'fills', 'markout_quote', 'markout_bps'],
      ...report.pairs.flatMap((p) =>
        p.evaluation.markouts.map((m) => [p.pairId, m.horizonMs, m.side, m.fills, m.quote, m.bps]),
      ),
    ]),
    attribution: csv([
      [
        'pair',
        'total',
        'spread_capture',
        'inventory',
        'commissions',
        'chain_fees',
        'opening_position',
        'opening_value',
        'closing_position',
        'closing_value',
        'unvalued_fills',
      ],
      ...report.pairs.map((p) => {
        const a = p.evaluation.attribution;
        return [
          p.pairId,
          a.total,
          a.spreadCapture,
          a.inventory,
          a.commissions,
          a.chainFees,
          a.openingPosition,
          a.openingValue,
          a.closingPosition,
          a.closingValue,
          a.unvalued,
        ];
      }),
    ]),
    samples: csv([
      [
        'pair',
        'time',
        'mark',
        'position',
        'realised',
        'unrealised',
        'fees',
        'bid',
        'ask',
        'spread_bps',
        'max_spread_bps',
        'compliant',
        'presence',
      ],
      ...report.pairs.flatMap((p) =>
        p.samples.map((s) => [
          p.pairId,
          iso(s.atMs),
          s.mark,
          s.position,
          s.realised,
          s.unrealised,
          s.fees,
          s.bid,
          s.ask,
          s.spreadBps,
          s.maxSpreadBps,
          s.compliant,
          s.presence,
        ]),
      ),
    ]),
    compliance: csv([
      [
        'pair',
        'symbol',
        'target',
        'presence',
        'met',
        'continuous_s',
        'present_s',
        'down_s',
        'halted_s',
        'exception_s',
        'max_spread',
        'min_size',
        'size_ratio',
        'guard',
        'breaches',
      ],
      ...report.pairs.flatMap((p) => {
        const c = p.compliance;
        return c === null
          ? []
          : [
              [
                p.pairId,
                p.symbol,
                c.target,
                c.presence,
                c.met,
                c.continuousMs / 1000,
                c.presentMs / 1000,
                c.downMs / 1000,
                c.haltedMs / 1000,
                c.exceptionMs / 1000,
                c.maxSpread,
                c.minSize,
                c.maxSizeRatio,
                c.guard,
                p.breaches.map((b) => b.limit).join(' '),
              ],
            ];
      }),
    ]),
    fills: csv([
      ['pair', 'time', 'side', 'role', 'quantity', 'price', 'fee', 'tx_hash'],
      ...report.pairs.flatMap((p) =>
        p.fills.map((f) => [p.pairId, iso(f.atMs), f.side, f.role, f.quantity, f.price, f.fee, f.txHash]),
      ),
    ]),
    transactions: csv([
      ['chain', 'wallet', 'kind', 'sent', 'included', 'failed', 'not_included', 'fee_base_units', 'fee_native'],
      ...report.transactions.map((g) => [
        g.chain,
        g.wallet,
        g.kind,
        g.sent,
        g.included,
        g.failed,
        g.other,
        g.fee,
        g.feeNative,
      ]),
    ]),
  };
}
