/**
 * A recorded pair read back: its venue binding (rules, scales, commissions), the order book's configuration
 * as the contract reported it, whether the wallet traded as a market maker, and the wallet's balances when
 * recording started. JSON keeps decimals as text and bigints as decimal text; each is restored here to what
 * the engine uses, exactly.
 */
import type { OnChainPairState, PairBinding } from '../chains/types.ts';
import { Decimal } from '../core/decimal.ts';
import type { PairRules } from '../core/rules.ts';
import type { TickRules } from '../core/ticks.ts';
import type { RecordedPairData } from '../store/recording-read.ts';

type Json = Record<string, unknown>;

const dec = (v: unknown) => new Decimal(v as string);
const big = (v: unknown) => BigInt(v as string);

export function bindingOfRecord(json: string): PairBinding {
  const b = JSON.parse(json) as Json;
  const r = b.rules as Json;
  const s = r.scales as Json;
  const t = r.tick as Json;
  const tick: TickRules =
    t.kind === 'fixed'
      ? { kind: 'fixed', source: t.source as string, tick: dec(t.tick) }
      : {
          kind: 'table',
          source: t.source as string,
          rows: (t.rows as Json[]).map((x) => ({ from: dec(x.from), tick: dec(x.tick) })),
        };
  const rules = {
    ...r,
    scales: {
      baseInternal: big(s.baseInternal),
      quoteInternal: big(s.quoteInternal),
      baseNative: big(s.baseNative),
      quoteNative: big(s.quoteNative),
    },
    tick,
    minimumSize: dec(r.minimumSize),
    sizeIncrement: dec(r.sizeIncrement),
    minimumOrderValue: dec(r.minimumOrderValue),
    maximumOrderValue: dec(r.maximumOrderValue),
    priceCollarBps: big(r.priceCollarBps),
    staticReferencePrice: r.staticReferencePrice === null ? null : dec(r.staticReferencePrice),
  } as unknown as PairRules;
  return { ...(b as unknown as PairBinding), rules };
}

export interface RecordedStart {
  readonly binding: PairBinding;
  readonly state: OnChainPairState;
  readonly marketMaker: boolean;
  readonly balances: { readonly base: bigint; readonly quote: bigint } | null;
}

/** The pair as a replay starts it; a pair recorded without a trading wallet gets `fallback` state. */
export function recordedStart(p: RecordedPairData): RecordedStart {
  const binding = bindingOfRecord(p.binding);
  const st = p.state === null ? null : (JSON.parse(p.state) as Json);
  const c = binding.rules.commissions;
  const state: OnChainPairState =
    st === null
      ? {
          // The open phase as each chain names it (chain A uint8 1, chain B the enum's name).
          phase: binding.chain === 'evm' ? 1 : 'OpenForTrading',
          open: true,
          scales: binding.rules.scales,
          ...c,
          prefunded: true,
        }
      : {
          phase: st.phase as number | string,
          open: st.open as boolean,
          scales: binding.rules.scales,
          makerBps: st.makerBps as number,
          takerBps: st.takerBps as number,
          marketMakerBps: st.marketMakerBps as number,
          prefunded: st.prefunded as boolean,
        };
  const bal = p.balances === null ? null : (JSON.parse(p.balances) as Json);
  return {
    binding,
    state,
    marketMaker: st?.marketMaker === true,
    balances: bal === null ? null : { base: big(bal.base), quote: big(bal.quote) },
  };
}
