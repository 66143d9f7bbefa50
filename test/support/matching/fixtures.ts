/**
 * The shared order book scenario fixtures (`test/fixtures/matching/*.json`, format in
 * src/sandbox/matching/rules.md), loaded and typed for every runner: the reference engine, the chain A
 * contracts and the chain B emulator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ErrorCode } from '../../../src/core/errors.ts';
import type { ExecutionCondition, OrderType, Side, Validity } from '../../../src/core/order-terms.ts';
import type { BookParams, Phase } from '../../../src/sandbox/matching/types.ts';

export interface FixtureWallet {
  readonly marketMaker: boolean;
  readonly registered: boolean;
  readonly canBuy: boolean;
  readonly canSell: boolean;
  readonly canCancel: boolean;
  readonly base: bigint;
  readonly quote: bigint;
  readonly baseAllowance: bigint;
  readonly quoteAllowance: bigint;
}

export interface PlaceStep {
  readonly wallet: string;
  readonly side: Side;
  readonly quantity: bigint;
  readonly price: bigint;
  readonly crossId: bigint;
  readonly type: OrderType;
  readonly condition: ExecutionCondition;
  readonly validity: Validity;
  readonly lifetimeDays: number;
}

export type FixtureEvent = Readonly<Record<string, string | number>> & { readonly type: string };

export interface Expectation {
  readonly error?: ErrorCode | null;
  readonly orderId?: bigint;
  readonly events?: readonly FixtureEvent[];
  /** account -> token -> signed delta; accounts and tokens not listed must not change. */
  readonly balanceDeltas?: Readonly<Record<string, Readonly<Partial<Record<'base' | 'quote', bigint>>>>>;
  readonly book?: {
    readonly buy: ReadonlyArray<{ orderId: bigint; wallet: string; quantity: bigint; price: bigint }>;
    readonly sell: ReadonlyArray<{ orderId: bigint; wallet: string; quantity: bigint; price: bigint }>;
  };
  readonly lastPrice?: bigint;
  readonly phase?: Phase;
}

export type Step =
  | { readonly kind: 'place'; readonly place: PlaceStep; readonly expect?: Expectation }
  | {
      readonly kind: 'cancel';
      readonly cancel: { wallet: string; side: Side; orderId: bigint };
      readonly expect?: Expectation;
    }
  | {
      readonly kind: 'adminCancel';
      readonly adminCancel: { side: Side; orderId: bigint };
      readonly expect?: Expectation;
    }
  | { readonly kind: 'clear'; readonly expect?: Expectation }
  | { readonly kind: 'setPhase'; readonly phase: Phase; readonly expect?: Expectation }
  | { readonly kind: 'advance'; readonly seconds: number; readonly expect?: Expectation }
  | { readonly kind: 'setStaticReferencePrice'; readonly price: bigint; readonly expect?: Expectation };

export interface Fixture {
  readonly file: string;
  readonly name: string;
  /** Pair parameters; `self` and `commissionWallet` are the placeholders "orderBook" and "commission". */
  readonly pair: BookParams;
  readonly wallets: Readonly<Record<string, FixtureWallet>>;
  readonly steps: readonly Step[];
  /** True when a chain A v1 order book can run it: pre-funded, standard GFD limit orders only, no time steps. */
  readonly evmCompatible: boolean;
}

const big = (v: unknown, where: string): bigint => {
  if (typeof v !== 'string' || !/^-?[0-9]+$/.test(v))
    throw new Error(`${where}: expected an integer string, got ${JSON.stringify(v)}`);
  return BigInt(v);
};

type Json = Record<string, unknown>;

function parseExpect(e: Json | undefined, where: string): Expectation | undefined {
  if (e === undefined) return undefined;
  const out: Record<string, unknown> = {};
  if ('error' in e) out.error = e.error;
  if ('orderId' in e) out.orderId = big(e.orderId, `${where}.orderId`);
  if ('events' in e) out.events = e.events;
  if ('balanceDeltas' in e) {
    const deltas: Record<string, Record<string, bigint>> = {};
    for (const [account, tokens] of Object.entries(e.balanceDeltas as Json)) {
      deltas[account] = Object.fromEntries(
        Object.entries(tokens as Json).map(([t, v]) => [t, big(v, `${where}.balanceDeltas.${account}.${t}`)]),
      );
    }
    out.balanceDeltas = deltas;
  }
  if ('book' in e) {
    const side = (list: unknown, s: string) =>
      (list as Json[]).map((o, i) => ({
        orderId: big(o.orderId, `${where}.book.${s}.${i}`),
        wallet: o.wallet as string,
        quantity: big(o.quantity, `${where}.book.${s}.${i}`),
        price: big(o.price, `${where}.book.${s}.${i}`),
      }));
    const b = e.book as Json;
    out.book = { buy: side(b.buy ?? [], 'buy'), sell: side(b.sell ?? [], 'sell') };
  }
  if ('lastPrice' in e) out.lastPrice = big(e.lastPrice, `${where}.lastPrice`);
  if ('phase' in e) out.phase = e.phase;
  return out as Expectation;
}

function parseStep(s: Json, where: string): Step {
  const expect = parseExpect(s.expect as Json | undefined, where);
  if ('place' in s) {
    const p = s.place as Json;
    const place: PlaceStep = {
      wallet: p.wallet as string,
      side: p.side as Side,
      quantity: big(p.quantity, `${where}.quantity`),
      price: big(p.price ?? '0', `${where}.price`),
      crossId: BigInt((p.crossId as number | undefined) ?? 0),
      type: (p.type as OrderType | undefined) ?? 'limit',
      condition: (p.condition as ExecutionCondition | undefined) ?? 'standard',
      validity: (p.validity as Validity | undefined) ?? 'gfd',
      lifetimeDays: (p.lifetimeDays as number | undefined) ?? 0,
    };
    return { kind: 'place', place, expect };
  }
  if ('cancel' in s) {
    const c = s.cancel as Json;
    return {
      kind: 'cancel',
      cancel: { wallet: c.wallet as string, side: c.side as Side, orderId: big(c.orderId, where) },
      expect,
    };
  }
  if ('adminCancel' in s) {
    const c = s.adminCancel as Json;
    return { kind: 'adminCancel', adminCancel: { side: c.side as Side, orderId: big(c.orderId, where) }, expect };
  }
  if ('clear' in s) return { kind: 'clear', expect };
  if ('setPhase' in s) return { kind: 'setPhase', phase: s.setPhase as Phase, expect };
  if ('advance' in s) return { kind: 'advance', seconds: (s.advance as Json).seconds as number, expect };
  if ('setStaticReferencePrice' in s)
    return { kind: 'setStaticReferencePrice', price: big(s.setStaticReferencePrice, where), expect };
  throw new Error(`${where}: unknown step ${JSON.stringify(Object.keys(s))}`);
}

export function parseFixture(json: Json, file: string): Fixture {
  const p = json.pair as Json;
  const pair: BookParams = {
    self: 'orderBook',
    commissionWallet: 'commission',
    scales: {
      baseInternal: big(p.baseInternalScale, 'pair.baseInternalScale'),
      quoteInternal: big(p.quoteInternalScale, 'pair.quoteInternalScale'),
      baseNative: big(p.baseNativeScale, 'pair.baseNativeScale'),
      quoteNative: big(p.quoteNativeScale, 'pair.quoteNativeScale'),
    },
    makerBps: p.makerBps as number,
    takerBps: p.takerBps as number,
    marketMakerBps: p.marketMakerBps as number,
    maximumMatches: p.maximumMatches as number,
    minimumSize: big(p.minimumSize, 'pair.minimumSize'),
    sizeIncrement: big(p.sizeIncrement, 'pair.sizeIncrement'),
    tickTable: (p.tickTable as Json[]).map((r, i) => ({
      from: big(r.from, `tickTable.${i}`),
      tick: big(r.tick, `tickTable.${i}`),
    })),
    priceCollarBps: p.priceCollarBps as number,
    staticReferencePrice: big(p.staticReferencePrice, 'pair.staticReferencePrice'),
    staticThresholdBps: p.staticThresholdBps as number,
    dynamicThresholdBps: p.dynamicThresholdBps as number,
    minimumOrderValue: big(p.minimumOrderValue, 'pair.minimumOrderValue'),
    maximumOrderValue: big(p.maximumOrderValue, 'pair.maximumOrderValue'),
    prefunded: p.prefunded as boolean,
  };
  const wallets: Record<string, FixtureWallet> = {};
  for (const [name, w] of Object.entries(json.wallets as Record<string, Json>)) {
    const base = big(w.base ?? '0', `wallets.${name}.base`);
    const quote = big(w.quote ?? '0', `wallets.${name}.quote`);
    wallets[name] = {
      marketMaker: (w.marketMaker as boolean | undefined) ?? false,
      registered: (w.registered as boolean | undefined) ?? true,
      canBuy: (w.canBuy as boolean | undefined) ?? true,
      canSell: (w.canSell as boolean | undefined) ?? true,
      canCancel: (w.canCancel as boolean | undefined) ?? true,
      base,
      quote,
      baseAllowance: w.baseAllowance === undefined ? base : big(w.baseAllowance, `wallets.${name}.baseAllowance`),
      quoteAllowance: w.quoteAllowance === undefined ? quote : big(w.quoteAllowance, `wallets.${name}.quoteAllowance`),
    };
  }
  const steps = (json.steps as Json[]).map((s, i) => parseStep(s, `${file} step ${i}`));
  const evmCompatible =
    pair.prefunded &&
    Object.values(wallets).every((w) => w.registered) &&
    steps.every(
      (s) =>
        s.kind !== 'advance' &&
        (s.kind !== 'place' ||
          (s.place.type === 'limit' && s.place.condition === 'standard' && s.place.validity === 'gfd')),
    );
  return { file, name: json.name as string, pair, wallets, steps, evmCompatible };
}

export const FIXTURE_DIR = new URL('../../fixtures/matching/', import.meta.url);

export function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.json'))
    .toSorted()
    .map((f) => parseFixture(JSON.parse(readFileSync(new URL(f, FIXTURE_DIR), 'utf8')) as Json, f));
}

/** Event fields as the fixtures write them: integers as decimal strings, small enums as numbers. */
export function normaliseEvent(
  e: Readonly<Record<string, unknown>>,
  nameOf: (account: string) => string,
): FixtureEvent {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'reportingData') continue;
    if (k === 'client' || k === 'toAddress') out[k] = nameOf(String(v));
    else if (typeof v === 'bigint') out[k] = v.toString();
    else if (typeof v === 'number' || typeof v === 'string') out[k] = v;
  }
  return out as FixtureEvent;
}
