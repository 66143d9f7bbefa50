/**
 * The operator's controls over a deployment, as the sandbox and its tests use them: phase, admin cancel,
 * clearing, reference price, registry flags, and token set-up (trustlines, authorization, minting,
 * approvals). Each is a real call of the contract's method through the emulator's control path, so it
 * emits the same events a transaction would; a refusal is thrown as the typed error of its contract code.
 */
import { describeScError } from '../../core/encoding/sc-error.ts';
import { DltError } from '../../core/errors.ts';
import type { Side } from '../../core/order-terms.ts';
import { fromWasmContractCode } from '../../core/venue-errors.ts';
import type { Phase, Token } from '../matching/types.ts';
import { PHASE_NAMES } from './contracts/order-book.ts';
import { clientStruct, type ClientRecord } from './contracts/registry.ts';
import type { BookDeployment, Venue } from './deploy.ts';
import type { WasmEmulator } from './emulator.ts';
import { scv, type ScVal } from './scval.ts';

/** Runs one control call; throws the contract's typed error, or E_VENUE_HOST_ERROR, when it fails. */
export function controlCall(emu: WasmEmulator, source: string, contract: string, fn: string, args: ScVal[]): ScVal {
  const out = emu.control({ source, contract, fn, args });
  if (out.ok) return out.value;
  if (out.error.type === 0) throw fromWasmContractCode(out.error.contractCode, { fn, message: out.message });
  throw new DltError('E_VENUE_HOST_ERROR', `${fn}: ${describeScError(out.error)}: ${out.message}`, {
    details: { scError: out.error },
  });
}

function admin(venue: Venue): string {
  return venue.operator.publicKey();
}

export function setPhase(emu: WasmEmulator, venue: Venue, d: BookDeployment, phase: Phase): void {
  controlCall(emu, admin(venue), d.book.address, 'set_phase', [scv.address(admin(venue)), scv.sym(PHASE_NAMES[phase])]);
}

export function adminCancel(emu: WasmEmulator, venue: Venue, d: BookDeployment, side: Side, orderId: bigint): void {
  controlCall(
    emu,
    admin(venue),
    d.book.address,
    side === 'buy' ? 'admin_cancel_buy_order' : 'admin_cancel_sell_order',
    [scv.address(admin(venue)), scv.u64(orderId)],
  );
}

export function clearOrders(emu: WasmEmulator, venue: Venue, d: BookDeployment): void {
  controlCall(emu, admin(venue), d.book.address, 'clear_orders', [scv.address(admin(venue))]);
}

export function setStaticReferencePrice(emu: WasmEmulator, venue: Venue, d: BookDeployment, priceRaw: bigint): void {
  controlCall(emu, admin(venue), d.book.address, 'set_static_reference_price', [
    scv.address(admin(venue)),
    scv.u64(priceRaw),
  ]);
}

export function setClient(emu: WasmEmulator, venue: Venue, client: string, record: ClientRecord): void {
  controlCall(emu, admin(venue), venue.registry.address, 'set_client', [
    scv.address(admin(venue)),
    clientStruct(client, record),
  ]);
}

export function removeClient(emu: WasmEmulator, venue: Venue, client: string): void {
  controlCall(emu, admin(venue), venue.registry.address, 'remove_client', [
    scv.address(admin(venue)),
    scv.address(client),
  ]);
}

function token(d: BookDeployment, t: Token) {
  return t === 'base'
    ? { contract: d.base, issuer: d.baseIssuer.publicKey() }
    : { contract: d.quote, issuer: d.quoteIssuer.publicKey() };
}

/** Opens `who`'s trustline (as if `who` called `trust`) and, for a regulated asset, authorizes it. */
export function trust(emu: WasmEmulator, d: BookDeployment, t: Token, who: string): void {
  const { contract, issuer } = token(d, t);
  controlCall(emu, who, contract.address, 'trust', [scv.address(who)]);
  if (contract.config.authRequired)
    controlCall(emu, issuer, contract.address, 'set_authorized', [scv.address(who), scv.bool(true)]);
}

export function setAuthorized(emu: WasmEmulator, d: BookDeployment, t: Token, who: string, authorized: boolean): void {
  const { contract, issuer } = token(d, t);
  controlCall(emu, issuer, contract.address, 'set_authorized', [scv.address(who), scv.bool(authorized)]);
}

export function mint(emu: WasmEmulator, d: BookDeployment, t: Token, to: string, amount: bigint): void {
  const { contract, issuer } = token(d, t);
  controlCall(emu, issuer, contract.address, 'mint', [scv.address(to), scv.i128(amount)]);
}

/** `from` approves `spender` (as if `from` called `approve`). */
export function approve(
  emu: WasmEmulator,
  d: BookDeployment,
  t: Token,
  from: string,
  spender: string,
  amount: bigint,
  expirationLedger: number,
): void {
  controlCall(emu, from, token(d, t).contract.address, 'approve', [
    scv.address(from),
    scv.address(spender),
    scv.i128(amount),
    scv.u32(expirationLedger),
  ]);
}

export interface WalletSetup {
  readonly stroops?: bigint;
  readonly base?: bigint;
  readonly quote?: bigint;
  /** Approve the order book for this much of each token (default: nothing). */
  readonly approveBase?: bigint;
  readonly approveQuote?: bigint;
  readonly client?: Omit<ClientRecord, 'id'> & { readonly id?: bigint };
}

let nextClientId = 1n;

/** A ready trading wallet: funded account, trustlines, balances, approvals and registry record. */
export function setUpWallet(emu: WasmEmulator, venue: Venue, d: BookDeployment, who: string, s: WalletSetup): void {
  emu.fundAccount(who, s.stroops ?? 100_000_000_000n);
  for (const t of ['base', 'quote'] as const) {
    trust(emu, d, t, who);
    const amount = t === 'base' ? s.base : s.quote;
    if (amount !== undefined && amount > 0n) mint(emu, d, t, who, amount);
    const allowance = t === 'base' ? s.approveBase : s.approveQuote;
    if (allowance !== undefined) approve(emu, d, t, who, d.book.address, allowance, emu.latest.seq + 100_000);
  }
  if (s.client !== undefined) setClient(emu, venue, who, { ...s.client, id: s.client.id ?? nextClientId++ });
}
