import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { fairValueSchema, type FairValueConfig } from '../../../../src/core/config/fair-value-config.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { deriveFairValueGauges } from '../../../../src/engine/fair-value/metrics.ts';
import { PairFairValue } from '../../../../src/engine/fair-value/pair-fair-value.ts';
import { PolledSource } from '../../../../src/engine/fair-value/sources.ts';
import type { Harness } from '../../../support/engine/harness.ts';
import { ours, setup, type Setup } from '../../../support/engine/pair-loop-setup.ts';

const d = (s: string) => new Decimal(s);

/** A source whose next read answers `value` (dated when it was set), or fails with `error`. */
function fakeSource(kind: 'feed' | 'oracle', h: Harness, maxAgeMs = 10_000) {
  const state = { value: d('100'), atMs: h.clock.now(), error: null as string | null };
  const source = new PolledSource({ kind, pollMs: 1_000, maxAgeMs, origin: `fake ${kind}` }, async () => {
    if (state.error !== null) throw new Error(state.error);
    return { value: state.value, atMs: state.atMs };
  });
  return {
    source,
    /** A new value, dated now, read at once. */
    async set(value: string) {
      state.value = d(value);
      state.atMs = h.clock.now();
      await source.refresh();
    },
  };
}

/** A ladder around `referencePrice`, with a fairValue block (only its guards matter here: the sources are fakes). */
function strategyFile(referencePrice: string, fairValue: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'dltmm-fair-')), 'fair.yaml');
  writeFileSync(
    path,
    [
      'kind: ladder',
      `referencePrice: ${referencePrice}`,
      'minSpreadBps: 0',
      'ladder: {levels: 1, bidSpreadBps: 20, askSpreadBps: 20, spacingBps: 10, sizes: ["2"]}',
      `fairValue: ${JSON.stringify(fairValue)}`,
    ].join('\n'),
  );
  return path;
}

interface FairSetup {
  readonly s: Setup;
  readonly fv: PairFairValue;
  readonly feed: ReturnType<typeof fakeSource>;
  readonly oracle: ReturnType<typeof fakeSource>;
  /** Log lines of the fair value (guards and sources). */
  readonly lines: string[];
}

async function fairSetup(fairValue: Record<string, unknown>, referencePrice = '[fair, mid]'): Promise<FairSetup> {
  const lines: string[] = [];
  const config: FairValueConfig = fairValueSchema.parse(fairValue);
  const made: { feed?: ReturnType<typeof fakeSource>; oracle?: ReturnType<typeof fakeSource>; fv?: PairFairValue } = {};
  const s = await setup({
    strategy: strategyFile(referencePrice, fairValue),
    fairValue: (h) => {
      made.feed = fakeSource('feed', h);
      made.oracle = fakeSource('oracle', h);
      made.fv = new PairFairValue({
        pairId: h.pair.pairId,
        config,
        sources: [made.feed.source, made.oracle.source],
        clock: h.clock,
        logger: pino(
          { level: 'info' },
          { write: (l: string) => void lines.push((JSON.parse(l) as { msg: string }).msg) },
        ),
      });
      return made.fv;
    },
  });
  const fv = made.fv as PairFairValue;
  fv.onChange(() => s.loop.trigger());
  await fv.start();
  deriveFairValueGauges(s.h.metrics, () => [fv]);
  // Others quote 99 / 101: a mid of 100, wide enough that quotes around a fair value near it cross nothing.
  s.book = {
    ...(s.book as NonNullable<Setup['book']>),
    buy: [{ limit: d('99'), quantity: d('5') }],
    sell: [{ limit: d('101'), quantity: d('5') }],
  };
  return { s, fv, feed: made.feed as FairSetup['feed'], oracle: made.oracle as FairSetup['oracle'], lines };
}

const best = (h: Harness, side: 'buy' | 'sell') =>
  ours(h)
    .filter((o) => o.side === side)
    .map((o) => o.price)
    .toSorted((a, b) => (side === 'buy' ? b.cmp(a) : a.cmp(b)))[0];

const count = (lines: string[], text: string) => lines.filter((l) => l.includes(text)).length;

describe('quoting around the fair value', () => {
  it('centres the quotes on the fair value, not on the mid of the book (others 99 / 101)', async () => {
    const f = await fairSetup({ sources: [{ kind: 'feed' }, { kind: 'oracle' }], combine: 'median' });
    await f.feed.set('100.4');
    await f.oracle.set('100.4');
    await f.s.round();
    // 20 bp either side of 100.4 (100.1992, 100.6008), snapped outwards to the pair's 0.1 tick; around the
    // mid they would be 99.8 and 100.2.
    expect(best(f.s.h, 'buy')?.toFixed()).toBe('100.1');
    expect(best(f.s.h, 'sell')?.toFixed()).toBe('100.7');
    expect(f.s.loop.last?.fair?.value?.toFixed()).toBe('100.4');
    expect(f.s.loop.last?.fair?.source).toBe('median');
  });
});

describe('the fair-value guards', () => {
  const both = { sources: [{ kind: 'feed' }, { kind: 'oracle' }], combine: 'median' };

  it("says a source passed its maximum age at that moment, while the pair's round is still busy sending", async () => {
    const f = await fairSetup(both);
    await f.feed.set('100.4');
    await f.oracle.set('100.4');
    await f.s.round();
    // A round that cannot finish (its placements wait, as on a busy chain B account) keeps the loop from
    // evaluating; the expiry still says so, in the log and in the verdict /fair-value shows.
    f.s.h.adapter.stallPlacements();
    f.s.h.clock.advance(5_000);
    await f.feed.set('100.6');
    f.s.loop.trigger();
    await f.s.h.settle();
    // The oracle's value, dated 10 s ago, passes its maximum age now; the feed's is 5 s old.
    f.s.h.clock.advance(5_001);
    expect(count(f.lines, 'fair-value source oracle unusable: stale')).toBe(1);
    expect(f.fv.last?.guards.has('unavailable') ?? false).toBe(false);
    expect(f.fv.last?.combined.sources.find((x) => x.kind === 'oracle')?.usable).toBe(false);
  });

  it('sources that disagree pull every quote first, logged once; quoting resumes when they agree again', async () => {
    const f = await fairSetup({ ...both, maxDispersionBps: 30 });
    await f.s.round();
    expect(ours(f.s.h)).toHaveLength(2);
    await f.oracle.set('101');
    await f.s.round();
    await f.s.round();
    expect(ours(f.s.h)).toHaveLength(0);
    expect(f.s.loop.last?.mode).toBe('paused (fair-value)');
    expect(count(f.lines, 'fair-value guard dispersion started')).toBe(1);
    expect(await f.s.h.metrics.text()).toMatch(/dltmm_fair_value_guard\{pair="[^"]+",guard="dispersion"\} 1/);
    await f.oracle.set('100.1');
    await f.s.round();
    expect(ours(f.s.h)).toHaveLength(2);
    expect(count(f.lines, 'fair-value guard dispersion ended')).toBe(1);
    expect(await f.s.h.metrics.text()).toMatch(/dltmm_fair_value_guard\{pair="[^"]+",guard="dispersion"\} 0/);
  });

  it("fair value far from the book of others: widen doubles every quote's distance from the centre", async () => {
    const f = await fairSetup({ ...both, guards: { maxDeviationBps: 30, onDeviation: 'widen', widenFactor: 2 } });
    await f.feed.set('100.2');
    await f.oracle.set('100.2');
    await f.s.round();
    // 20 bp from 100.2 (99.9996, 100.4004; ticks of 0.05 below 100, 0.1 above).
    expect([best(f.s.h, 'buy')?.toFixed(), best(f.s.h, 'sell')?.toFixed()]).toEqual(['99.95', '100.5']);
    await f.feed.set('100.4');
    await f.oracle.set('100.4');
    await f.s.round();
    await f.s.round();
    // 40 bp from 100.4 (99.9984, 100.8016) once it is 40 bp from the others' mid; 20 bp would be 100.1 / 100.7.
    expect([best(f.s.h, 'buy')?.toFixed(), best(f.s.h, 'sell')?.toFixed()]).toEqual(['99.95', '100.9']);
    expect(f.s.loop.last?.fair?.action).toBe('widen');
    expect(count(f.lines, 'fair-value guard deviation started')).toBe(1);
  });

  it('fair value far from the book of others: pull takes the quotes off, quote keeps them around fair value', async () => {
    const pull = await fairSetup({ ...both, guards: { maxDeviationBps: 30, onDeviation: 'pull' } });
    await pull.feed.set('100.4');
    await pull.oracle.set('100.4');
    await pull.s.round();
    await pull.s.round();
    expect(ours(pull.s.h)).toHaveLength(0);
    const quote = await fairSetup({ ...both, guards: { maxDeviationBps: 30, onDeviation: 'quote' } });
    await quote.feed.set('100.4');
    await quote.oracle.set('100.4');
    await quote.s.round();
    expect([best(quote.s.h, 'buy')?.toFixed(), best(quote.s.h, 'sell')?.toFixed()]).toEqual(['100.1', '100.7']);
    expect(quote.s.loop.last?.fair?.guards.has('deviation')).toBe(true);
  });

  it('a jump pauses the pair for the cool-down; quoting resumes when it ends, without waiting for a tick', async () => {
    const f = await fairSetup({
      ...both,
      guards: { jump: { thresholdBps: 80, windowMs: 10_000, coolDownMs: 5_000 } },
    });
    await f.s.round();
    expect(ours(f.s.h)).toHaveLength(2);
    f.s.h.clock.advance(1_000);
    await f.feed.set('101');
    await f.oracle.set('101');
    await f.s.round();
    await f.s.round();
    expect(ours(f.s.h)).toHaveLength(0);
    expect(count(f.lines, 'fair-value guard jump started')).toBe(1);
    f.s.h.clock.advance(4_000);
    await f.s.loop.idle();
    await f.s.h.block();
    expect(ours(f.s.h)).toHaveLength(0);
    // The guard's own timer triggers the round at the end of the cool-down.
    f.s.h.clock.advance(1_000);
    await f.s.loop.idle();
    await f.s.h.block();
    expect(ours(f.s.h)).toHaveLength(2);
    expect(count(f.lines, 'fair-value guard jump ended')).toBe(1);
  });

  it('a source older than its maximum age stops counting when it passes it; with none left, [fair, mid] quotes around the mid', async () => {
    const f = await fairSetup(both);
    await f.feed.set('100.4');
    await f.oracle.set('100.4');
    await f.s.round();
    expect(best(f.s.h, 'buy')?.toFixed()).toBe('100.1');
    // Both values pass their 10 s maximum age: the expiry timer triggers the round.
    f.s.h.clock.advance(10_001);
    await f.s.loop.idle();
    await f.s.h.block();
    await f.s.round();
    expect(f.s.loop.last?.fair?.guards.has('unavailable')).toBe(true);
    expect([best(f.s.h, 'buy')?.toFixed(), best(f.s.h, 'sell')?.toFixed()]).toEqual(['99.8', '100.2']);
    expect(count(f.lines, 'fair-value source feed unusable: stale')).toBe(1);
    await f.feed.set('100.4');
    await f.s.round();
    expect(count(f.lines, 'fair-value source feed usable again')).toBe(1);
    expect(best(f.s.h, 'buy')?.toFixed()).toBe('100.1');
  });
});
