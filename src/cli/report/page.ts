/**
 * The report's files: one self-contained HTML page (inline CSS and SVG, no script, nothing fetched), the same
 * data as JSON, and CSV tables (samples, compliance, fills, transactions) for spreadsheets.
 */
import type { RenderedChart } from './charts.ts';
import type { DayReport, PairDay } from './data.ts';
import { attributionTable, markoutTables } from './evaluation-page.ts';
import { marketContextTable } from './market-context.ts';
import { berlinDateTime, berlinTime, duration, esc, money, pct } from './page-kit.ts';

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
${marketContextTable(p.market)}
${attributionTable(p)}${markoutTables(p)}
${mine.map(figure).join('\n')}</section>`;
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

/** What a backtest replayed, said at the top of its page: its figures are simulated, not traded. */
function backtestNote(report: DayReport): string {
  const b = report.backtest;
  if (b === undefined) return '';
  const latency = b.latency
    .map(
      (l) =>
        `${esc(String(l.chain))}: ${esc(String(l.samples))} recorded delays, median ${esc(String(l.p50Ms ?? '-'))} ms, blocks every ${esc(String(l.blockMs))} ms`,
    )
    .join('; ');
  const overrides = Object.entries(b.overrides)
    .map(([k, v]) => `${esc(k)}=${esc(v)}`)
    .join(', ');
  return `<p class="backtest"><strong>Backtest</strong>: simulated from the recording${b.recordings.length === 1 ? '' : 's'} ${b.recordings.map(esc).join(', ')}, ${berlinDateTime.format(b.fromMs)} to ${berlinDateTime.format(b.toMs)}, not traded. Strategies: ${Object.entries(
    b.strategies,
  )
    .map(([k, v]) => `${esc(k)} ${esc(v)}`)
    .join(', ')}${overrides === '' ? '' : `; changed: ${overrides}`}. Latency: ${latency}.</p>`;
}

export function reportHtml(
  report: DayReport,
  charts: readonly RenderedChart[],
  files: { json: string; csv: readonly string[] },
): string {
  const global = charts.filter((c) => c.id === 'transactions' || c.id === 'rejections');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>dlt-mm ${report.backtest === undefined ? 'trading day' : 'backtest of'} ${esc(report.day)}</title><style>${CSS}</style></head>
<body>
<header><h1>${report.backtest === undefined ? 'Trading day' : 'Backtest of'} ${esc(report.day)}</h1>${backtestNote(report)}
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
