import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { pairState, type BoardModel, type PairRow } from '../../../../src/cli/board/model.ts';
import { renderBoard } from '../../../../src/cli/board/render.ts';
import { Decimal } from '../../../../src/core/decimal.ts';

const d = (v: string) => new Decimal(v);
const T = Date.UTC(2026, 2, 2, 9, 30, 5);

const plainPair: PairRow = {
  pairId: 'tp-evm-bond',
  symbol: 'BOND26EURe',
  chain: 'evm',
  bid: { price: d('99.8'), size: d('1.5') },
  ask: { price: d('100.2'), size: d('0.5') },
  spreadBps: d('39.92'),
  fair: { value: d('100.0123456'), source: 'feed', guards: [] },
  obligations: null,
  position: d('1.5'),
  pnl: d('-0.0749'),
  fills: 3,
  markout: { horizonMs: 60_000, bps: d('-3.456') },
  state: { kind: 'active', detail: '' },
};

const obligedPair: PairRow = {
  ...plainPair,
  pairId: 'tp-wasm-fund',
  symbol: 'FUND1EURe',
  chain: 'wasm',
  bid: null,
  spreadBps: null,
  fair: { value: d('101.5'), source: 'median', guards: ['unavailable', 'jump'] },
  obligations: {
    presence: 5 / 6,
    presenceTarget: 0.8,
    spread: d('31.26'),
    maxSpread: d('50'),
    spreadUnit: 'bps',
    compliant: true,
  },
  position: d('-2'),
  pnl: d('12.346'),
  fills: 11,
  markout: { horizonMs: 60_000, bps: d('12.04') },
  state: { kind: 'paused', detail: 'stale-market-data, tx-backoff' },
};

const model: BoardModel = {
  atMs: T,
  phase: 'trading',
  logPath: '.sandbox/embedded-bot.log',
  pairs: [plainPair, obligedPair],
  wallets: [
    {
      chain: 'evm',
      address: '0x86e8689839cb9306d2733F3A892BB4D9159953F6',
      native: d('999.968576123456789'),
      inFlight: 4,
    },
    { chain: 'wasm', address: 'GDZVDRALDQQN3NSTEGVKEO7FQTJ4AHTW5GXPV6BGC5PVE2MFNH64ACOS', native: null, inFlight: 0 },
  ],
  warnings: [{ level: 'warn', text: '09:30:01.000 WARN  pair paused: stale-market-data pair=tp-wasm-fund' }],
  warningCount: 7,
};

/** The cells of the line that starts with `first`, split on runs of two or more spaces. */
function rowOf(lines: readonly string[], first: string): string[] {
  const l = lines.find((x) => x.startsWith(`${first} `));
  if (l === undefined) throw new Error(`no line for ${first} in\n${lines.join('\n')}`);
  return l.split(/ {2,}/);
}

describe('board rendering', () => {
  const lines = renderBoard(model, { width: 200, color: false });

  it('shows each pair: our best bid and ask with sizes, spread, position, PnL, fills, markout and state', () => {
    expect(rowOf(lines, 'BOND26EURe')).toEqual([
      'BOND26EURe',
      'evm',
      '99.8 x 1.5',
      '100.2 x 0.5',
      '100.012 feed',
      '39.9bp / -',
      '+1.5',
      '-0.07',
      '- / -',
      '3',
      '-3.5bp',
      'active',
    ]);
  });

  it("takes the obligation columns from the provider's figures, and shows '-' for a side we do not quote", () => {
    expect(rowOf(lines, 'FUND1EURe')).toEqual([
      'FUND1EURe',
      'wasm',
      '-',
      '100.2 x 0.5',
      '101.5 median !jump',
      '31.3bp / 50.0bp',
      '-2',
      '+12.35',
      '83.3% / 80.0%',
      '11',
      '+12.0bp',
      'paused: stale-market-data, tx-backoff',
    ]);
  });

  it('shows each wallet with its native fee balance and transactions in flight, then the last warnings', () => {
    expect(rowOf(lines, '0x86e8…53F6')).toEqual(['0x86e8…53F6', 'evm', '999.968576', '4']);
    expect(rowOf(lines, 'GDZVDR…ACOS')).toEqual(['GDZVDR…ACOS', 'wasm', '-', '0']);
    const at = lines.indexOf('Last warnings (7 since start)');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('09:30:01.000 WARN  pair paused: stale-market-data pair=tp-wasm-fund');
    expect(lines[0]).toBe(
      'dlt-mm trading  ·  2026-03-02 09:30:05 UTC  ·  2 pair(s)  ·  log: .sandbox/embedded-bot.log  ·  Ctrl-C stops and cancels every order',
    );
  });

  it('keeps every line within the terminal width, marking what it cut', () => {
    const narrow = renderBoard(model, { width: 60, color: false });
    expect(narrow.filter((l) => l.length > 60)).toEqual([]);
    expect(narrow.find((l) => l.startsWith('BOND26EURe'))?.endsWith('…')).toBe(true);
    // The same rows are there, in the same order.
    expect(narrow.map((l) => l.split(' ')[0])).toEqual(lines.map((l) => l.split(' ')[0]));
  });

  it('colours only when asked, and colours do not change the text', () => {
    expect(lines.join('\n')).not.toContain('\u001B[');
    const coloured = renderBoard(model, { width: 200, color: true });
    expect(coloured.join('\n')).toContain('\u001B[');
    expect(coloured.map((l) => stripVTControlCharacters(l))).toEqual(lines);
  });

  it("shows '-' for a pair without a fair value, and names none when no source is usable", () => {
    const none = renderBoard(
      {
        ...model,
        pairs: [
          { ...plainPair, fair: null },
          { ...obligedPair, fair: { value: null, source: null, guards: ['unavailable'] } },
        ],
      },
      { width: 200, color: false },
    );
    expect(rowOf(none, 'BOND26EURe')[4]).toBe('-');
    expect(rowOf(none, 'FUND1EURe')[4]).toBe('none !unavailable');
  });

  it('names the markout horizon in the head', () => {
    expect(lines.find((l) => l.startsWith('PAIR'))?.split(/ {2,}/)).toContain('MARKOUT 1m');
  });

  it("shows '-' for the markout until a fill has been valued at the horizon", () => {
    const none = renderBoard(
      {
        ...model,
        pairs: [
          { ...plainPair, markout: null },
          { ...obligedPair, markout: { horizonMs: 60_000, bps: null } },
        ],
      },
      { width: 200, color: false },
    );
    expect([rowOf(none, 'BOND26EURe')[10], rowOf(none, 'FUND1EURe')[10]]).toEqual(['-', '-']);
  });

  it('says so when no pair trades yet and no warning was logged', () => {
    const empty = renderBoard(
      { ...model, phase: 'starting', pairs: [], wallets: [], warnings: [], warningCount: 0 },
      { width: 120, color: false },
    );
    expect(empty).toContain('(no pair trading yet)');
    expect(empty).toContain('No warnings');
  });
});

describe('pair state on the board', () => {
  const active = { mode: 'active' } as const;
  it('shows the bot stopping or killed before anything the venue says', () => {
    expect(
      pairState({
        phase: 'killed',
        risk: { mode: 'killed', reason: 'a: daily loss 600 reached the limit 500' },
        tradingStatus: 'AUTOMATIC_TRADING_HALT',
        statusReason: null,
      }),
    ).toEqual({
      kind: 'killed',
      detail: 'a: daily loss 600 reached the limit 500',
    });
    expect(
      pairState({
        phase: 'trading',
        risk: { mode: 'stopped', reason: '5 consecutive transaction failures' },
        tradingStatus: 'CONTINUOUS_TRADING',
        statusReason: null,
      }).kind,
    ).toBe('stopped');
    expect(
      pairState({ phase: 'stopping', risk: active, tradingStatus: 'CONTINUOUS_TRADING', statusReason: null }).kind,
    ).toBe('stopping');
    expect(pairState({ phase: 'starting', risk: active, tradingStatus: null, statusReason: null }).kind).toBe(
      'starting',
    );
  });
  it("says what holds an active pair's placements back (a throttle, an order-to-trade limit)", () => {
    const trading = {
      phase: 'trading',
      risk: active,
      tradingStatus: 'CONTINUOUS_TRADING',
      statusReason: null,
    } as const;
    expect(pairState({ ...trading, held: 'throttled (wallet perBlock)' })).toEqual({
      kind: 'active',
      detail: 'placements throttled (wallet perBlock)',
    });
    expect(pairState({ ...trading, held: null })).toEqual({ kind: 'active', detail: '' });
  });
  it('tells a venue halt, with its reason, from a closed market and from a pause of our own', () => {
    const closedFlag = { mode: 'paused', reasons: ['market-closed'], untilMs: null } as const;
    expect(
      pairState({
        phase: 'trading',
        risk: closedFlag,
        tradingStatus: 'AUTOMATIC_TRADING_HALT',
        statusReason: 'VOLATILITY_HALT',
      }),
    ).toEqual({ kind: 'halted', detail: 'VOLATILITY_HALT' });
    // The venue's expected end of the halt (estimatedTradingHaltEnd) is shown with it.
    expect(
      pairState({
        phase: 'trading',
        risk: closedFlag,
        tradingStatus: 'AUTOMATIC_TRADING_HALT',
        statusReason: 'VOLATILITY_HALT',
        haltEndMs: Date.parse('2026-11-27T10:35:00Z'),
      }),
    ).toEqual({ kind: 'halted', detail: 'VOLATILITY_HALT, until 10:35 UTC' });
    expect(
      pairState({ phase: 'trading', risk: closedFlag, tradingStatus: 'MANUAL_TRADING_HALT', statusReason: null }),
    ).toEqual({ kind: 'halted', detail: 'MANUAL_TRADING_HALT' });
    expect(
      pairState({
        phase: 'trading',
        risk: closedFlag,
        tradingStatus: 'OUT_OF_TRADING',
        statusReason: 'END_OF_TRADING_DAY',
      }),
    ).toEqual({ kind: 'closed', detail: 'END_OF_TRADING_DAY' });
    // Open by the venue's status but not by the book's phase: our pause, with its reason.
    expect(
      pairState({ phase: 'trading', risk: closedFlag, tradingStatus: 'CONTINUOUS_TRADING', statusReason: null }),
    ).toEqual({ kind: 'paused', detail: 'market-closed' });
    expect(
      pairState({
        phase: 'trading',
        risk: { mode: 'paused', reasons: ['market-closed', 'stale-market-data'], untilMs: null },
        tradingStatus: 'OUT_OF_TRADING',
        statusReason: null,
      }),
    ).toEqual({
      kind: 'paused',
      detail: 'market-closed, stale-market-data',
    });
    expect(
      pairState({ phase: 'trading', risk: active, tradingStatus: 'CONTINUOUS_TRADING', statusReason: null }),
    ).toEqual({ kind: 'active', detail: '' });
  });
});
