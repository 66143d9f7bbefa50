/**
 * The bot's state gauges against the truth of the chains at one moment. The truth is taken twice per chain: after
 * the newest block or ledger and after the one before, because the bot may not have seen the newest one yet
 * (the same allowance the classification makes); each state counts the bot's own transactions then in flight
 * as the bot counts them (a placement sent is live). A gauge is right when it lies between the two truths; at a
 * quiet moment they are equal. A gauge is a double, compared with the exact decimal truth as the nearest double;
 * a series the bot does not export differs from any truth. Pure.
 */
import { Decimal } from '../../src/core/decimal.ts';
import type { MetricSample } from '../support/e2e/metrics-text.ts';
import type { Chain, GaugeCheck } from './model.ts';

/** One chain after one block or ledger. */
export interface ChainState {
  readonly height: number;
  /** Our orders resting on the books. */
  readonly resting: readonly { readonly pairId: string; readonly side: 'buy' | 'sell'; readonly crossId: bigint }[];
  /** Placements of ours sent and not yet in a block or ledger at that height. */
  readonly inflight: number;
  /** Base position per pair since the start (exact decimal, base units). */
  readonly positions: ReadonlyMap<string, string>;
}

export interface TruthSnapshot {
  readonly wallets: readonly { readonly chain: Chain; readonly address: string }[];
  readonly pairs: readonly { readonly chain: Chain; readonly pairId: string }[];
  /** Per chain: the state after the block or ledger before the newest, and after the newest. */
  readonly states: Readonly<Record<Chain, readonly [ChainState, ChainState]>>;
  /** High byte of the bot's cross identifiers: a resting order of our wallet without it is foreign. */
  readonly crossIdTag: number;
}

const sameWallet = (chain: Chain, a: string, b: string) =>
  chain === 'evm' ? a.toLowerCase() === b.toLowerCase() : a === b;

export function compareGauges(sample: number, metrics: readonly MetricSample[], t: TruthSnapshot): GaugeCheck[] {
  const out: GaugeCheck[] = [];
  const check = (
    chain: Chain | null,
    gauge: string,
    subject: string,
    found: readonly MetricSample[],
    truths: readonly string[],
  ) => {
    const sorted = truths.map((x) => new Decimal(x)).toSorted((a, b) => a.comparedTo(b));
    const lo = sorted[0] as Decimal;
    const hi = sorted.at(-1) as Decimal;
    const truth = lo.eq(hi) ? lo.toFixed() : `${lo.toFixed()}..${hi.toFixed()}`;
    if (found.length === 0) {
      out.push({ sample, chain, gauge, subject, value: 'not exported', truth, equal: false });
      return;
    }
    const value = found.reduce((n, s) => n + s.value, 0);
    out.push({
      sample,
      chain,
      gauge,
      subject,
      value: String(value),
      truth,
      equal: value >= Number(lo.toFixed()) && value <= Number(hi.toFixed()),
    });
  };
  const named = (name: string, match: (labels: Readonly<Record<string, string>>) => boolean) =>
    metrics.filter((m) => m.name === name && match(m.labels));

  for (const w of t.wallets) {
    const ofWallet = (l: Readonly<Record<string, string>>) =>
      l.chain === w.chain && sameWallet(w.chain, l.wallet ?? '', w.address);
    const states = t.states[w.chain];
    check(
      w.chain,
      'dltmm_orders_live',
      w.address,
      named('dltmm_orders_live', ofWallet),
      states.map((s) => String(s.resting.length + s.inflight)),
    );
    // A placement in flight may or may not have been declared unknown yet; one the chain has decided must not be.
    check(w.chain, 'dltmm_orders_unknown_outcome', w.address, named('dltmm_orders_unknown_outcome', ofWallet), [
      '0',
      ...states.map((s) => String(s.inflight)),
    ]);
    check(
      w.chain,
      'dltmm_foreign_orders',
      w.address,
      named('dltmm_foreign_orders', ofWallet),
      states.map((s) => String(s.resting.filter((r) => Number(r.crossId >> 24n) !== t.crossIdTag).length)),
    );
    // Nothing but trades moves our balances in a soak: there is nothing to mismatch.
    for (const m of named('dltmm_inventory_mismatch', ofWallet))
      check(w.chain, 'dltmm_inventory_mismatch', m.labels.token ?? '', [m], ['0']);
  }
  for (const p of t.pairs) {
    const ofPair = (l: Readonly<Record<string, string>>) => l.pair === p.pairId;
    const states = t.states[p.chain];
    check(
      p.chain,
      'dltmm_position_base',
      p.pairId,
      named('dltmm_position_base', ofPair),
      states.map((s) => s.positions.get(p.pairId) ?? '0'),
    );
    for (const side of ['buy', 'sell'] as const) {
      const on = states.map((s) => (s.resting.some((r) => r.pairId === p.pairId && r.side === side) ? '1' : '0'));
      check(
        p.chain,
        'dltmm_quote_presence',
        `${p.pairId} ${side}`,
        named('dltmm_quote_presence', (l) => ofPair(l) && l.side === side),
        on,
      );
    }
  }
  return out;
}

/** The gauge series `compareGauges` reads, as one comparable string (to see that two scrapes agree). */
export function gaugeFingerprint(metrics: readonly MetricSample[]): string {
  const names = new Set([
    'dltmm_orders_live',
    'dltmm_orders_unknown_outcome',
    'dltmm_foreign_orders',
    'dltmm_inventory_mismatch',
    'dltmm_position_base',
    'dltmm_quote_presence',
    'dltmm_events_covered',
  ]);
  return metrics
    .filter((m) => names.has(m.name))
    .map((m) => `${m.name}${JSON.stringify(m.labels)}=${m.value}`)
    .toSorted()
    .join('\n');
}
