/**
 * Obligations end to end on the fake chain: the pair loop with the guard, the order engine, the quote tap in
 * front of its follower, and the tracker measuring from the chain's events with the test clock. Chain time is
 * the fake chain's block time (one block a second); the test clock follows it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObligationsConfig } from '../../../../src/core/config/obligations-config.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { loopMetrics } from '../../../../src/engine/loop/loop-metrics.ts';
import { PairLoop } from '../../../../src/engine/loop/pair-loop.ts';
import { PnlTracker } from '../../../../src/engine/loop/pnl-tracker.ts';
import { StrategyCatalog } from '../../../../src/engine/loop/strategy-catalog.ts';
import { VenueStatus, type PairStatus } from '../../../../src/market/status.ts';
import { obligationRoutes } from '../../../../src/engine/obligations/control.ts';
import { ObligationTracker } from '../../../../src/engine/obligations/tracker.ts';
import { resolveLimits } from '../../../../src/engine/risk/limits.ts';
import { RiskMonitor } from '../../../../src/engine/risk/monitor.ts';
import { parseMetrics, total } from '../../../support/e2e/metrics-text.ts';
import { harness, start, WALLET, type Harness } from '../../../support/engine/harness.ts';
import { TestClock } from '../../../support/clock.ts';

const d = (s: string) => new Decimal(s);
/** Block 0 of the fake chain; block n is n seconds later (Friday 15 January 2027, 09:00 Berlin time). */
const CHAIN_START = 1_800_000_000_000;
const ladder = readFileSync(fileURLToPath(new URL('../../../../strategies/ladder.yaml', import.meta.url)), 'utf8');
/** The ladder 150 bp out a side: a 300 bp spread, three times what the terms allow. */
const WIDE = ladder.replace('bidSpreadBps: 20', 'bidSpreadBps: 150').replace('askSpreadBps: 20', 'askSpreadBps: 150');
const TERMS: ObligationsConfig = {
  maxSpreadBps: 100,
  minValue: '200',
  presenceTarget: 90,
  maxSizeRatio: 0.5,
  stressedSpreadMultiplier: 2,
  stressedAfterHaltMs: 0,
  alertMarginMs: 0,
  guard: true,
};

type Line = { msg: string; level: number } & Record<string, unknown>;

interface Setup {
  readonly h: Harness;
  readonly tracker: ObligationTracker;
  readonly loop: PairLoop;
  readonly status: VenueStatus;
  readonly logs: Line[];
  readonly pairId: string;
  /** One strategy round, one block, the clock one second on, one tracker round. */
  rounds(n: number): Promise<void>;
  /** What the venue shows of the pair from now on, instead of what the status read (null: what it read). */
  show(status: PairStatus | null): void;
}

const open: Array<{ h: Harness; dir: string; tracker: ObligationTracker }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    o.tracker.stop();
    await o.h.engine.stop();
    o.h.store.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function newTracker(
  h: Harness,
  obligations: ObligationsConfig | null,
  logs: Line[],
  status: () => PairStatus | undefined,
  pnl?: PnlTracker,
  cadence: { sampleMs?: number; evaluateEveryMs?: number } = {},
): ObligationTracker {
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Line) });
  const t = new ObligationTracker({
    store: h.store,
    pairs: [{ binding: h.pair, wallet: WALLET, obligations }],
    calendar: { enabled: false, config: { holidays: [], open: '08:00', close: '17:00', clearingDelayMinutes: 5 } },
    sampleMs: cadence.sampleMs ?? 1_000,
    ...(cadence.evaluateEveryMs === undefined ? {} : { evaluateEveryMs: cadence.evaluateEveryMs }),
    clock: h.clock,
    logger,
    metrics: h.metrics,
  });
  t.start({
    status,
    pnl: () =>
      pnl === undefined
        ? null
        : {
            mark: pnl.mark,
            position: pnl.position,
            realised: pnl.state.realised,
            unrealised: d('0'),
            fees: pnl.state.fees,
          },
  });
  return t;
}

async function setup(
  options: {
    obligations?: ObligationsConfig | null;
    strategy?: string;
    balances?: { base: bigint; quote: bigint };
  } = {},
): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-obligations-'));
  const strategyPath = join(dir, 'strategy.yaml');
  writeFileSync(strategyPath, options.strategy ?? WIDE);
  const ref: { tracker: ObligationTracker | null } = { tracker: null };
  const h = await harness({
    clock: new TestClock(CHAIN_START),
    ...(options.balances === undefined ? {} : { balances: options.balances }),
  });
  await start(h);
  const logs: Line[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Line) });
  const pairId = h.pair.pairId;
  const metrics = loopMetrics(h.metrics);
  const risk = new RiskMonitor();
  risk.addPair(pairId, WALLET, resolveLimits({ staleMarketDataMs: 60_000 }), h.clock.now());
  const catalog = new StrategyCatalog((p) => readFileSync(p, 'utf8'));
  const status = new VenueStatus(
    h.pair,
    {
      getTradeInfo: async () => ({
        raw: {},
        tradingStatus: 'CONTINUOUS_TRADING',
        lastPrice: d('100'),
        referencePrice: d('100'),
      }),
    },
    h.adapter,
    logger,
    () => undefined,
  );
  await status.refreshPhase();
  const pnl = new PnlTracker(h.engine.fills(pairId), h.pair.rules.scales);
  const obligations = options.obligations === undefined ? TERMS : options.obligations;
  const shown: { status: PairStatus | null } = { status: null };
  const tracker = newTracker(h, obligations, logs, () => shown.status ?? status.current, pnl);
  ref.tracker = tracker;
  h.engine.onConfirmedEvents((events) => tracker.onChainEvents('evm', WALLET, events));
  open.push({ h, dir, tracker });
  const loop = new PairLoop({
    runtime: h.engine.pair(pairId)!,
    engine: h.engine,
    adapter: h.adapter,
    feed: {
      book: () => ({
        symbol: h.pair.symbol,
        buy: [{ limit: d('99.8'), quantity: d('5') }],
        sell: [{ limit: d('100.2'), quantity: d('5') }],
        receivedAt: h.clock.now(),
        source: 'ws' as const,
      }),
    },
    status,
    risk,
    pnl,
    strategy: () => catalog.get(strategyPath),
    limits: () => resolveLimits({}),
    calendar: { enabled: false, config: { holidays: [], open: '08:00', close: '17:00', clearingDelayMinutes: 5 } },
    quoteShare: d('1'),
    refreshCost: d('0'),
    marketMaker: false,
    balanceMaxAgeMs: 0,
    clock: h.clock,
    logger,
    metrics,
    obligations: {
      terms: (now) => ref.tracker?.guardTerms(pairId, now) ?? null,
      outcome: (r, now) => ref.tracker?.guardOutcome(pairId, r, now),
    },
  });
  return {
    h,
    tracker,
    loop,
    status,
    logs,
    pairId,
    async rounds(n: number) {
      for (let i = 0; i < n; i++) {
        risk.marketData(pairId, h.clock.now());
        await status.refreshTradeInfo(h.clock.now());
        loop.trigger(h.clock.now());
        await loop.idle();
        await h.block();
        const chainTime = CHAIN_START + Number(h.venue.height) * 1000;
        h.clock.advance(Math.max(1_000, chainTime - h.clock.now()));
        ref.tracker?.tick();
      }
    },
    show(status: PairStatus | null) {
      shown.status = status;
    },
  };
}

const snapshot = (s: Setup) => {
  const x = s.tracker.snapshot(s.pairId);
  if (x === null) throw new Error('no snapshot');
  return x;
};

describe('obligations measured from the chain, kept by the guard', () => {
  it('a model that quotes too wide is kept inside the terms by the guard, and the presence shows it', async () => {
    const s = await setup();
    await s.rounds(30);
    const x = snapshot(s);
    expect(x.compliantNow).toBe(true);
    expect(x.spreadBps).toBeLessThanOrEqual(100);
    expect(Number(x.bidSize)).toBeGreaterThanOrEqual(200);
    // Absent only until the first quotes rested (their first block): at least 90 % of the 30 s.
    expect(x.presence).toBeGreaterThan(0.9);
    expect(x.continuousMs).toBeGreaterThan(25_000);
    expect(x.breach).toBeNull();
  });

  it('measured only (guard off), the same model is never within the terms', async () => {
    // A minimum the ladder's sizes meet: only its spread keeps it out.
    const s = await setup({ obligations: { ...TERMS, guard: false, minValue: '50' } });
    await s.rounds(20);
    const x = snapshot(s);
    expect([x.compliantNow, x.shortfall, x.presence]).toEqual([false, 'spread', 0]);
    expect(x.spreadBps).toBeGreaterThan(250);
  });

  it('a limit that forces a breach is said once and counted once, and its end is said', async () => {
    // 1.5 base units in the wallet: the ask can never reach the minimum value of 200.
    const s = await setup({ balances: { base: 150_000_000n, quote: 100_000n * 10n ** 6n } });
    await s.rounds(6);
    const said = s.logs.filter(
      (l) => typeof l.msg === 'string' && l.msg.startsWith('market-making obligations breached'),
    );
    expect(said.map((l) => l.limit)).toEqual(['funds']);
    expect(snapshot(s).breach?.limit).toBe('funds');
    expect(total(parseMetrics(await s.h.metrics.text()), 'dltmm_obligation_breaches_total', { limit: 'funds' })).toBe(
      1,
    );
    expect(s.h.store.obligations.breaches(0, Number.MAX_SAFE_INTEGER).map((b) => [b.limit, b.endedMs])).toEqual([
      ['funds', null],
    ]);
    s.tracker.guardOutcome(s.pairId, { status: 'guarded' }, s.h.clock.now());
    expect(s.logs.some((l) => l.msg === 'market-making obligations met again')).toBe(true);
    expect(s.h.store.obligations.breaches(0, Number.MAX_SAFE_INTEGER)[0]?.endedMs).toBe(s.h.clock.now());
  });

  it('a restart’s downtime counts as absence, and the figures survive it', async () => {
    const s = await setup();
    await s.rounds(20);
    const before = snapshot(s);
    s.tracker.stop();
    s.h.clock.advance(60_000);
    const logs: Line[] = [];
    const again = newTracker(s.h, TERMS, logs, () => s.status.current);
    again.tick();
    const after = again.snapshot(s.pairId);
    // Our orders stayed on the book while the bot was down (a crash leaves them), and still it is absence.
    expect(s.h.store.obligations.open(s.pairId).length).toBeGreaterThan(0);
    expect(after?.continuousMs).toBeGreaterThanOrEqual(before.continuousMs + 60_000);
    expect(after?.presentMs).toBeLessThanOrEqual(before.presentMs + 1_000);
    expect(s.h.store.obligations.runs(0, Number.MAX_SAFE_INTEGER)).toHaveLength(2);
    again.stop();
  });

  it('an exceptional-circumstance window declared at the endpoint leaves its time out; callers off loopback are refused', async () => {
    const s = await setup({ obligations: { ...TERMS, guard: false } });
    await s.rounds(20);
    const before = snapshot(s);
    const routes = obligationRoutes(s.tracker, s.h.clock);
    const from = new Date(s.h.clock.now() - 10_000).toISOString();
    expect(
      routes({
        method: 'POST',
        path: '/obligations/windows',
        body: { reason: 'market data feed failed', from },
        remoteAddress: '10.1.2.3',
      })?.status,
    ).toBe(403);
    expect(
      routes({ method: 'POST', path: '/obligations/windows', body: { from }, remoteAddress: '127.0.0.1' }),
    ).toMatchObject({ status: 400 });
    const declared = routes({
      method: 'POST',
      path: '/obligations/windows',
      body: { reason: 'market data feed failed', from },
      remoteAddress: '127.0.0.1',
    });
    expect(declared).toMatchObject({
      status: 201,
      body: { kind: 'exception', reason: 'market data feed failed', source: 'endpoint' },
    });
    s.tracker.tick();
    expect(snapshot(s).continuousMs).toBe(before.continuousMs - 10_000);
    expect(snapshot(s).market).toBe('exception');
    const id = (declared?.body as { id: number } | undefined)?.id;
    expect(
      routes({ method: 'POST', path: `/obligations/windows/${id}/end`, body: {}, remoteAddress: '::1' }),
    ).toMatchObject({ status: 200, body: { toMs: s.h.clock.now() } });
    expect(s.h.store.obligations.windows(0, Number.MAX_SAFE_INTEGER)[0]?.reason).toBe('market data feed failed');
  });

  it('figures kept stretch by stretch over a long session equal one measurement of it, also after a window declared in the past', async () => {
    const s = await setup();
    await s.rounds(150);
    const startMs = CHAIN_START + 1_000;
    // An exception for a stretch long settled: the tracker goes back to a checkpoint before it, not to the start.
    s.tracker.declare({
      kind: 'exception',
      pairId: s.pairId,
      fromMs: startMs + 70_000,
      toMs: startMs + 80_000,
      reason: 'market data feed failed',
      source: 'endpoint',
    });
    s.tracker.tick();
    const kept = snapshot(s);
    // A second tracker on the same store measures the whole day in one go.
    const fresh = newTracker(s.h, TERMS, [], () => s.status.current);
    const once = fresh.snapshot(s.pairId);
    expect(kept.continuousMs).toBeGreaterThan(130_000);
    expect([kept.continuousMs, kept.presentMs]).toEqual([once?.continuousMs, once?.presentMs]);
    fresh.stop();
  });

  it('works the figures out every evaluateEveryMs on its timer, and at once when called', async () => {
    const s = await setup();
    await s.rounds(3);
    // A second tracker sampling every 10 s, working its figures out every 5 s; its start works them out once.
    const t = newTracker(s.h, TERMS, [], () => s.status.current, undefined, {
      sampleMs: 10_000,
      evaluateEveryMs: 5_000,
    });
    const at = () => t.snapshot(s.pairId)?.atMs;
    const start = s.h.clock.now();
    expect(at()).toBe(start);
    s.h.clock.advance(4_000);
    expect(at()).toBe(start);
    s.h.clock.advance(1_000);
    expect(at()).toBe(start + 5_000);
    // Called by hand (as the stop does), the figures are worked out at once.
    s.h.clock.advance(1_000);
    t.tick();
    expect(at()).toBe(start + 6_000);
    t.stop();
  });

  it('warns once when the absence the day can take falls under the margin', async () => {
    const s = await setup({ obligations: { ...TERMS, guard: false, alertMarginMs: 24 * 3_600_000 } });
    await s.rounds(5);
    const warnings = s.logs.filter(
      (l) => typeof l.msg === 'string' && l.msg.startsWith('market-making presence target at risk'),
    );
    expect(warnings).toHaveLength(1);
    expect(snapshot(s).absenceLeftMs).toBeLessThan(24 * 3_600_000);
  });

  it('halts are left out, and a volatility halt opens a stressed window that widens the limit', async () => {
    const s = await setup({ obligations: { ...TERMS, stressedAfterHaltMs: 60_000 } });
    await s.rounds(5);
    const halted: PairStatus = {
      ...s.status.current,
      phase: 4,
      phaseOpen: false,
      tradingStatus: 'AUTOMATIC_TRADING_HALT',
    };
    s.show(halted);
    s.tracker.marketObserved(s.pairId, halted, s.h.clock.now());
    const beforeHalt = snapshot(s).continuousMs;
    s.h.clock.advance(30_000);
    s.show(null);
    s.tracker.marketObserved(
      s.pairId,
      { ...halted, phase: 1, phaseOpen: true, tradingStatus: 'CONTINUOUS_TRADING' },
      s.h.clock.now(),
    );
    const openedAt = s.h.clock.now();
    s.tracker.tick();
    expect(snapshot(s).continuousMs - beforeHalt).toBeLessThan(1_000);
    expect(
      s.h.store.obligations
        .market(s.pairId, 0, Number.MAX_SAFE_INTEGER)
        .map((m) => m.state)
        .slice(-2),
    ).toEqual(['halted', 'continuous']);
    expect(s.tracker.guardTerms(s.pairId, openedAt)?.maxSpread.value.toFixed()).toBe('200');
    expect(s.tracker.guardTerms(s.pairId, openedAt + 60_001)?.maxSpread.value.toFixed()).toBe('100');
    expect(snapshot(s).stressed).toBe(true);
  });

  it('samples every pair for the report and publishes the gauges', async () => {
    const s = await setup();
    await s.rounds(8);
    const samples = s.h.store.obligations.samples(s.pairId, 0, Number.MAX_SAFE_INTEGER);
    expect(samples.length).toBeGreaterThanOrEqual(8);
    const last = samples.at(-1);
    expect([last?.bid !== null, last?.ask !== null, last?.compliant]).toEqual([true, true, true]);
    const m = parseMetrics(await s.h.metrics.text());
    expect(total(m, 'dltmm_obligation_compliant', { pair: s.pairId })).toBe(1);
    expect(total(m, 'dltmm_obligation_target_ratio', { pair: s.pairId })).toBe(0.9);
    expect(total(m, 'dltmm_obligation_max_spread_bps', { pair: s.pairId })).toBe(100);
  });
});
