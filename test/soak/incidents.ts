/**
 * Every rejection, revert and refused transaction of the run as an incident with the facts its classification
 * needs: from the chains (failed and dropped transactions, rejections and cancellations by the contract), from
 * the RPC recorder (refusals at simulation and at submission, chain B), and from the bot's log (chain A
 * refusals at simulation). Pure: the records in, the incidents and every cancel attempt out.
 */
import { fromRejectionReason, REJECTION_REASONS } from '../../src/core/venue-errors.ts';
import type { CancelAttempt, Published } from './analysis.ts';
import { BookReplay } from './book-replay.ts';
import type { BotRecord } from './bot-record.ts';
import type { Chain, ChainTx, Incident, IncidentFacts, OrderTruth, Removal, SentCall } from './model.ts';

export interface IncidentInput {
  readonly txs: readonly ChainTx[];
  readonly calls: readonly SentCall[];
  /** Chain B TRY_AGAIN_LATER answers that met a pending transaction of the same source. */
  readonly busy: ReadonlySet<SentCall>;
  readonly dropped: readonly { readonly hash: string; readonly ledger: number }[];
  readonly orders: ReadonlyMap<string, OrderTruth>;
  readonly halts: ReadonlyMap<string, readonly number[]>;
  readonly bot: Pick<BotRecord, 'byOrderId' | 'refusals'>;
  /** Chain A simulations of our write calls: a refusal the bot logs left when its simulation was asked. */
  readonly evmSimulations: readonly SentCall[];
  readonly published: Readonly<Record<Chain, Published>>;
}

export interface IncidentOutput {
  readonly incidents: Incident[];
  readonly cancels: CancelAttempt[];
}

export function incidentsOf(input: IncidentInput): IncidentOutput {
  const sent = new Map<string, SentCall>();
  for (const c of input.calls)
    if (c.method === 'send' && c.hash !== null && c.ok && !sent.has(c.hash)) sent.set(c.hash, c);
  const leftAt = (t: ChainTx) => sent.get(t.hash)?.atMs ?? input.published[t.chain].get(t.height) ?? 0;

  const cancels: CancelAttempt[] = [];
  for (const t of input.txs) {
    if (t.call === 'cancel' && t.orderId !== null)
      cancels.push({
        chain: t.chain,
        pairId: t.pairId,
        orderId: t.orderId,
        txHash: t.hash,
        atMs: leftAt(t),
        at: { height: t.height, index: t.index },
      });
  }
  for (const c of input.calls) {
    if (c.call === 'cancel' && !c.ok && c.orderId !== null)
      cancels.push({ chain: c.chain, pairId: c.pairId, orderId: c.orderId, txHash: c.hash, atMs: c.atMs, at: null });
  }
  // The bot logs a refusal once its lane reaches the command; the command left when its simulation was asked.
  const refusals = input.bot.refusals.map((r) => {
    const asked = input.evmSimulations
      .filter(
        (c) =>
          !c.ok &&
          c.call === r.call &&
          c.pairId === r.pairId &&
          c.code === r.code &&
          (r.orderId === null || c.orderId === r.orderId) &&
          c.atMs <= r.atMs,
      )
      .at(-1);
    return asked === undefined ? r : { ...r, atMs: asked.atMs };
  });
  for (const r of refusals) {
    if (r.call === 'cancel' && r.orderId !== null)
      cancels.push({ chain: r.chain, pairId: r.pairId, orderId: r.orderId, txHash: null, atMs: r.atMs, at: null });
  }

  const cancelFacts = (
    chain: Chain,
    pairId: string | null,
    orderId: string | null,
    atMs: number,
    hash: string | null,
  ): IncidentFacts => {
    if (pairId === null || orderId === null) return { removal: null, earlierCancel: null, botKnewGoneMs: null };
    const truth = input.orders.get(BookReplay.key(chain, pairId, orderId));
    const removal: Removal | null =
      truth === undefined || truth.closedHeight === null || truth.closedBy === null || truth.closedBy === 'rejected'
        ? null
        : {
            height: truth.closedHeight,
            how: truth.closedBy,
            nextPublishedMs: input.published[chain].get(truth.closedHeight + 1) ?? null,
          };
    const earlier = cancels.find(
      (c) =>
        c.chain === chain &&
        c.pairId === pairId &&
        c.orderId === orderId &&
        c.at !== null &&
        c.txHash !== hash &&
        c.atMs < atMs,
    );
    return {
      removal,
      earlierCancel: earlier?.at == null ? null : { txHash: earlier.txHash ?? '', height: earlier.at.height },
      botKnewGoneMs: input.bot.byOrderId.get(`${chain}|${pairId}|${orderId}`)?.goneMs ?? null,
    };
  };
  const haltFacts = (chain: Chain, pairId: string | null, atMs: number, height: number | null): IncidentFacts => {
    const seen = (h: number) =>
      height !== null ? h <= height : (input.published[chain].get(h) ?? Number.POSITIVE_INFINITY) <= atMs;
    const h = (input.halts.get(pairId ?? '') ?? []).filter(seen).at(-1);
    return { halt: h === undefined ? null : { height: h, nextPublishedMs: input.published[chain].get(h + 1) ?? null } };
  };
  const factsOf = (
    chain: Chain,
    call: Incident['call'],
    code: string,
    pairId: string | null,
    orderId: string | null,
    atMs: number,
    height: number | null,
    hash: string | null,
  ): IncidentFacts => {
    if (call === 'cancel') return cancelFacts(chain, pairId, orderId, atMs, hash);
    if (code === 'E_VENUE_MARKET_CLOSED') return haltFacts(chain, pairId, atMs, height);
    return {};
  };

  const incidents: Incident[] = [];
  for (const t of input.txs) {
    if (t.success) continue;
    const atMs = leftAt(t);
    const code = t.code ?? 'E_VENUE_CONTRACT_ERROR';
    incidents.push({
      chain: t.chain,
      stage: 'inclusion',
      call: t.call,
      pairId: t.pairId,
      code,
      name: t.name ?? code,
      txHash: t.hash,
      orderId: t.orderId,
      atMs,
      height: t.height,
      facts: factsOf(t.chain, t.call, code, t.pairId, t.orderId, atMs, t.height, t.hash),
    });
  }
  for (const c of input.calls) {
    if (c.ok) continue;
    const code = c.code ?? 'E_CHAIN_RPC';
    const facts =
      code === 'TRY_AGAIN_LATER'
        ? { sourceBusy: input.busy.has(c) }
        : factsOf(c.chain, c.call, code, c.pairId, c.orderId, c.atMs, null, c.hash);
    incidents.push({
      chain: c.chain,
      stage: c.method === 'simulate' ? 'simulation' : 'submission',
      call: c.call,
      pairId: c.pairId,
      code,
      name: c.name ?? code,
      txHash: c.hash,
      orderId: c.orderId,
      atMs: c.atMs,
      height: null,
      facts,
    });
  }
  for (const r of refusals) {
    incidents.push({
      chain: r.chain,
      stage: 'simulation',
      call: r.call,
      pairId: r.pairId,
      code: r.code,
      name: r.name,
      txHash: null,
      orderId: r.orderId,
      atMs: r.atMs,
      height: null,
      facts: factsOf(r.chain, r.call, r.code, r.pairId, r.orderId, r.atMs, null, null),
    });
  }
  for (const d of input.dropped) {
    const c = sent.get(d.hash);
    if (c === undefined) continue;
    incidents.push({
      chain: 'wasm',
      stage: 'expiry',
      call: c.call,
      pairId: c.pairId,
      code: 'DROPPED',
      name: 'dropped without inclusion',
      txHash: d.hash,
      orderId: c.orderId,
      atMs: c.atMs,
      height: null,
      facts: {},
    });
  }
  for (const o of input.orders.values()) {
    const atMs = input.published[o.chain].get(o.receivedHeight) ?? 0;
    if (o.rejectReason !== null && o.rejectReason !== 0) {
      const code = fromRejectionReason(o.rejectReason)?.code ?? 'E_REJECTED_UNKNOWN';
      incidents.push({
        chain: o.chain,
        stage: 'matching',
        call: 'place',
        pairId: o.pairId,
        code,
        name: `OrderRejected ${REJECTION_REASONS[o.rejectReason] ?? o.rejectReason}`,
        txHash: null,
        orderId: o.orderId,
        atMs,
        height: o.receivedHeight,
        facts: {},
      });
    }
    if (o.closedBy === 'cancelled by the contract') {
      incidents.push({
        chain: o.chain,
        stage: 'matching',
        call: 'place',
        pairId: o.pairId,
        code: 'CANCELLED_BY_CONTRACT',
        name: 'CancelOrder ByContract',
        txHash: null,
        orderId: o.orderId,
        atMs,
        height: o.closedHeight,
        facts: {},
      });
    }
  }
  return { incidents: incidents.toSorted((a, b) => a.atMs - b.atMs), cancels };
}
