/**
 * Draws a board model as text lines no wider than the terminal: a header, one row per pair, one per wallet,
 * the last warnings. Pure: the same model and width give the same text; colours only when asked.
 */
import { styleText } from 'node:util';
import type { Decimal } from '../../core/decimal.ts';
import type { BoardModel, Level, PairRow, PairStateKind, WalletRow } from './model.ts';
import type { ObligationStatus } from './obligations.ts';

type Style = Parameters<typeof styleText>[0];

interface Cell {
  readonly text: string;
  readonly width: number;
  readonly right?: boolean;
  readonly style?: Style | undefined;
}

export interface RenderOptions {
  /** Terminal columns: no line is longer. */
  readonly width: number;
  readonly color: boolean;
}

const GAP = '  ';
const NONE = '-';

const STATE_STYLE: Record<PairStateKind, Style> = {
  starting: 'dim',
  active: 'green',
  paused: 'yellow',
  halted: 'yellow',
  closed: 'dim',
  stopping: 'yellow',
  stopped: 'red',
  killed: ['red', 'bold'],
};

/** Cuts `text` to `width` columns (an ellipsis marks the cut) and pads it. */
function fit(text: string, width: number, right = false): string {
  const cut = text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
  return right ? cut.padStart(width) : cut.padEnd(width);
}

/** Joins cells into one line of at most `width` columns; a line cut short ends with an ellipsis. */
function line(cells: readonly Cell[], options: RenderOptions): string {
  const segments: Array<{ text: string; style?: Style | undefined }> = [];
  for (const [i, c] of cells.entries()) {
    if (i > 0) segments.push({ text: GAP });
    // The last cell is not padded: nothing follows it.
    const last = i === cells.length - 1;
    segments.push({ text: last && c.right !== true ? c.text : fit(c.text, c.width, c.right === true), style: c.style });
  }
  const total = segments.reduce((n, s) => n + s.text.length, 0);
  if (total > options.width) {
    let room = options.width - 1;
    for (const s of segments) {
      s.text = s.text.slice(0, Math.max(0, room));
      room -= s.text.length;
    }
    segments.push({ text: '…' });
  }
  // Trailing blanks go, styled or not.
  while (segments.length > 0 && segments.at(-1)!.text.trimEnd() === '') segments.pop();
  const tail = segments.at(-1);
  if (tail !== undefined) tail.text = tail.text.trimEnd();
  return segments
    .map((s) =>
      options.color && s.style !== undefined && s.text !== ''
        ? styleText(s.style, s.text, { validateStream: false })
        : s.text,
    )
    .join('');
}

function plain(text: string, options: RenderOptions, style?: Style): string {
  const t = fit(text, options.width).trimEnd();
  return options.color && style !== undefined ? styleText(style, t, { validateStream: false }) : t;
}

const signed = (d: Decimal, places?: number): string => {
  const v = places === undefined ? d : d.toDecimalPlaces(places);
  return `${v.gt(0) ? '+' : ''}${places === undefined ? v.toFixed() : v.toFixed(places)}`;
};
const level = (l: Level | null): string => (l === null ? NONE : `${l.price.toFixed()} x ${l.size.toFixed()}`);
const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;
const spreadText = (d: Decimal, unit: 'bps' | 'quote'): string =>
  unit === 'bps' ? `${d.toDecimalPlaces(1).toFixed(1)}bp` : d.toFixed();
const shortAddress = (a: string): string => (a.length > 14 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a);

interface Column {
  readonly head: string;
  readonly width: number;
  readonly right?: boolean;
}

/** The pair table's columns; the first one's width follows the longest symbol. */
const PAIR_COLUMNS: readonly Column[] = [
  { head: 'PAIR', width: 8 },
  { head: 'CHAIN', width: 5 },
  { head: 'OUR BID x SIZE', width: 14 },
  { head: 'OUR ASK x SIZE', width: 14 },
  { head: 'FAIR (source)', width: 18 },
  { head: 'SPREAD / MAX', width: 17 },
  { head: 'POSITION', width: 9, right: true },
  { head: 'PNL', width: 9, right: true },
  { head: 'PRESENCE/TARGET', width: 15 },
  { head: 'FILLS', width: 5, right: true },
  { head: 'MARKOUT', width: 11, right: true },
  { head: 'STATE', width: 24 },
];

const WALLET_COLUMNS: readonly Column[] = [
  { head: 'WALLET', width: 14 },
  { head: 'CHAIN', width: 5 },
  { head: 'NATIVE FEE BALANCE', width: 20, right: true },
  { head: 'IN FLIGHT', width: 9, right: true },
];

interface Value {
  readonly text: string;
  readonly style?: Style | undefined;
}

function cells(columns: readonly Column[], values: readonly Value[], firstWidth?: number): Cell[] {
  return columns.map((c, i) => ({
    width: i === 0 && firstWidth !== undefined ? firstWidth : c.width,
    right: c.right === true,
    ...(values[i] ?? { text: '' }),
  }));
}

function heads(columns: readonly Column[], firstWidth?: number): Cell[] {
  return cells(
    columns,
    columns.map((c) => ({ text: c.head, style: 'bold' as Style })),
    firstWidth,
  );
}

/** `spread / max`: the tracker's figures when the pair has obligations, else our own spread and no maximum. */
function spreadValue(row: PairRow): Value {
  const ob: ObligationStatus | null = row.obligations;
  if (ob === null) return { text: `${row.spreadBps === null ? NONE : spreadText(row.spreadBps, 'bps')} / ${NONE}` };
  const over = ob.spread !== null && ob.maxSpread !== null && ob.spread.gt(ob.maxSpread);
  return {
    text: `${ob.spread === null ? NONE : spreadText(ob.spread, ob.spreadUnit)} / ${ob.maxSpread === null ? NONE : spreadText(ob.maxSpread, ob.spreadUnit)}`,
    style: over ? 'red' : undefined,
  };
}

/** The fair value and its source (6 significant digits); a guard in force is named after it, in yellow. */
function fairValue(row: PairRow): Value {
  const f = row.fair;
  if (f === null) return { text: NONE, style: 'dim' };
  const value = f.value === null ? 'none' : `${f.value.toSignificantDigits(6).toFixed()} ${f.source ?? ''}`.trim();
  const guards = f.guards.filter((g) => g !== 'unavailable');
  return guards.length === 0 && f.value !== null
    ? { text: value }
    : { text: `${value} !${guards.join(',') || 'unavailable'}`, style: 'yellow' };
}

/** `+1.2bp`: our fills' volume-weighted markout at the board's horizon (named in the head), red when they lost. */
function markoutValue(row: PairRow): Value {
  const m = row.markout;
  if (m === null || m.bps === null) return { text: NONE, style: 'dim' };
  return { text: `${signed(m.bps, 1)}bp`, style: m.bps.lt(0) ? 'red' : undefined };
}

const horizonText = (ms: number): string =>
  ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;

/** The pair columns, the markout's head naming the board's horizon (`MARKOUT 1m`). */
function pairColumns(m: BoardModel): readonly Column[] {
  const horizon = m.pairs.find((p) => p.markout !== null)?.markout?.horizonMs;
  if (horizon === undefined) return PAIR_COLUMNS;
  return PAIR_COLUMNS.map((c) => (c.head === 'MARKOUT' ? { ...c, head: `MARKOUT ${horizonText(horizon)}` } : c));
}

function presenceValue(row: PairRow): Value {
  const ob = row.obligations;
  if (ob === null) return { text: `${NONE} / ${NONE}` };
  const below = ob.presence !== null && ob.presence < ob.presenceTarget;
  const style: Style | undefined =
    ob.compliant === false ? 'red' : below ? 'yellow' : ob.compliant === true ? 'green' : undefined;
  return { text: `${ob.presence === null ? NONE : percent(ob.presence)} / ${percent(ob.presenceTarget)}`, style };
}

function pairValues(row: PairRow): Value[] {
  return [
    { text: row.symbol },
    { text: row.chain },
    { text: level(row.bid), style: row.bid === null ? 'dim' : undefined },
    { text: level(row.ask), style: row.ask === null ? 'dim' : undefined },
    fairValue(row),
    spreadValue(row),
    { text: signed(row.position) },
    { text: signed(row.pnl, 2), style: row.pnl.lt(0) ? 'red' : undefined },
    presenceValue(row),
    { text: String(row.fills) },
    markoutValue(row),
    {
      text: row.state.detail === '' ? row.state.kind : `${row.state.kind}: ${row.state.detail}`,
      style: STATE_STYLE[row.state.kind],
    },
  ];
}

function walletValues(w: WalletRow): Value[] {
  return [
    { text: shortAddress(w.address) },
    { text: w.chain },
    { text: w.native === null ? NONE : w.native.toDecimalPlaces(6).toFixed() },
    { text: String(w.inFlight) },
  ];
}

const clock = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

export function renderBoard(m: BoardModel, options: RenderOptions): string[] {
  const symbolWidth = Math.max(8, ...m.pairs.map((p) => p.symbol.length));
  const header = [
    `dlt-mm ${m.phase}`,
    clock(m.atMs),
    `${m.pairs.length} pair(s)`,
    m.logPath === null ? 'log: standard output' : `log: ${m.logPath}`,
  ];
  if (m.phase === 'starting' || m.phase === 'trading' || m.phase === 'killed')
    header.push('Ctrl-C stops and cancels every order');
  const lines = [plain(header.join('  ·  '), options, 'bold'), ''];
  const columns = pairColumns(m);
  lines.push(line(heads(columns, symbolWidth), options));
  for (const p of m.pairs) lines.push(line(cells(columns, pairValues(p), symbolWidth), options));
  if (m.pairs.length === 0) lines.push(plain('(no pair trading yet)', options, 'dim'));
  lines.push('', line(heads(WALLET_COLUMNS), options));
  for (const w of m.wallets) lines.push(line(cells(WALLET_COLUMNS, walletValues(w)), options));
  lines.push(
    '',
    plain(m.warningCount === 0 ? 'No warnings' : `Last warnings (${m.warningCount} since start)`, options, 'bold'),
  );
  for (const w of m.warnings) lines.push(plain(w.text, options, w.level === 'warn' ? 'yellow' : 'red'));
  return lines;
}
