/**
 * Runs a shared matching fixture on the chain B emulator: every wallet a real account with trustlines,
 * balances, approvals and a registry record; each step a call of the order book contract, either through the
 * emulator's invocation layer (the state machine transactions use) or as a real signed transaction over RPC
 * (simulated, assembled, signed, sent, included). What each step did is read back from the chain: contract
 * errors, the order book's own events (decoded from their ScVals), token balances, the book and its phase.
 */
import { Address, Contract, Keypair, rpc, TimeoutInfinite, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { contractErrorByWasmCode } from '../../../../src/core/venue-errors.ts';
import { encodeWasmCrossIdentifier, encodeWasmOrderData } from '../../../../src/core/encoding/wasm-order.ts';
import type { Book, Token } from '../../../../src/sandbox/matching/types.ts';
import { freePort } from '../../../../src/sandbox/net.ts';
import { decodeBookEvent } from '../../../../src/sandbox/wasm/contracts/book-events.ts';
import { deployBook, deployVenue, type BookDeployment, type Venue } from '../../../../src/sandbox/wasm/deploy.ts';
import { WasmEmulator } from '../../../../src/sandbox/wasm/emulator.ts';
import type { EmittedEvent } from '../../../../src/sandbox/wasm/host.ts';
import { sha256 } from '../../../../src/sandbox/wasm/crypto.ts';
import { approve, mint, setClient, trust } from '../../../../src/sandbox/wasm/operator.ts';
import { startRpcServer, type RunningRpc } from '../../../../src/sandbox/wasm/rpc-server.ts';
import { scv, type ScVal } from '../../../../src/sandbox/wasm/scval.ts';
import { normaliseEvent, type Fixture } from '../../matching/fixtures.ts';
import type { StepOutcome } from '../../matching/engine-runner.ts';
import { TestClock } from './harness.ts';

/** A step's outcome on the contract: the same shape as the engine's, so one comparison serves both. */
export type WasmStepOutcome = StepOutcome;

interface CallResult {
  readonly error: number | null;
  readonly events: readonly EmittedEvent[];
}

const decimals = (scale: bigint) => scale.toString().length - 1;

export class WasmFixtureVenue {
  readonly emu: WasmEmulator;
  readonly clock: TestClock;
  readonly venue: Venue;
  readonly d: BookDeployment;
  readonly keys = new Map<string, Keypair>();
  private readonly names = new Map<string, string>();
  private rpcServer: RunningRpc | null = null;
  private server: rpc.Server | null = null;

  constructor(fixture: Fixture) {
    this.clock = new TestClock(1_800_000_000_000);
    this.emu = new WasmEmulator({ clock: this.clock, ledgerIntervalMs: 0 });
    this.venue = deployVenue(this.emu, Keypair.fromRawEd25519Seed(sha256(Buffer.from('fixture operator'))));
    const s = fixture.pair.scales;
    this.d = deployBook(this.emu, this.venue, {
      name: fixture.file,
      params: fixture.pair,
      base: { code: 'BASE', decimals: decimals(s.baseNative) },
      quote: { code: 'QUOTE', decimals: decimals(s.quoteNative) },
    });
    this.names.set(this.d.book.address, 'orderBook');
    this.names.set(this.d.commissionWallet, 'commission');
    for (const [name, w] of Object.entries(fixture.wallets)) {
      const kp = Keypair.fromRawEd25519Seed(sha256(Buffer.from(`${fixture.file}:${name}`)));
      const id = kp.publicKey();
      this.keys.set(name, kp);
      this.names.set(id, name);
      this.emu.fundAccount(id, 100_000_000_000n);
      for (const t of ['base', 'quote'] as const) {
        trust(this.emu, this.d, t, id);
        const amount = t === 'base' ? w.base : w.quote;
        if (amount > 0n) mint(this.emu, this.d, t, id, amount);
        approve(
          this.emu,
          this.d,
          t,
          id,
          this.d.book.address,
          t === 'base' ? w.baseAllowance : w.quoteAllowance,
          this.emu.latest.seq + 1_000_000,
        );
      }
      if (w.registered) {
        setClient(this.emu, this.venue, id, {
          id: BigInt(this.keys.size),
          canBuy: w.canBuy,
          canSell: w.canSell,
          canCancel: w.canCancel,
          canTransfer: true,
          isMarketMaker: w.marketMaker,
        });
      }
    }
    this.emu.closeLedger();
  }

  /** Serves the emulator over RPC so steps can be real transactions. */
  async serve(): Promise<void> {
    this.rpcServer = await startRpcServer(this.emu, { port: await freePort() });
    this.server = new rpc.Server(this.rpcServer.url, { allowHttp: true });
  }

  async close(): Promise<void> {
    await this.rpcServer?.close();
  }

  private balances(accounts: readonly string[]): Map<string, bigint> {
    const out = new Map<string, bigint>();
    for (const a of accounts)
      for (const t of ['base', 'quote'] as const)
        out.set(`${t}:${a}`, (t === 'base' ? this.d.base : this.d.quote).balanceOf(a));
    return out;
  }

  private direct(source: string, fn: string, args: ScVal[]): CallResult {
    const out = this.emu.control({ source, contract: this.d.book.address, fn, args });
    return out.ok
      ? { error: null, events: out.events }
      : { error: out.error.type === 0 ? out.error.contractCode : -1, events: [] };
  }

  /** A real transaction: simulation (whose contract error ends the step, as it stops a client), signature, inclusion. */
  private async viaRpc(kp: Keypair, fn: string, args: ScVal[]): Promise<CallResult> {
    const server = this.server as rpc.Server;
    const acct = await server.getAccount(kp.publicKey());
    const sdkArgs = args.map((a) => xdr.ScVal.fromXdrObject(a));
    const raw = new TransactionBuilder(acct, { fee: '100', networkPassphrase: this.emu.passphrase })
      .addOperation(new Contract(this.d.book.address).call(fn, ...sdkArgs))
      // The fixtures' clock runs ahead of the wall clock the SDK's setTimeout reads: no upper time bound.
      .setTimeout(TimeoutInfinite)
      .build();
    const sim = await server.simulateTransaction(raw);
    if (rpc.Api.isSimulationError(sim))
      return { error: Number(/Error\(Contract, #(\d+)\)/.exec(sim.error)?.[1] ?? -1), events: [] };
    const tx = rpc.assembleTransaction(raw, sim).build();
    tx.sign(kp);
    const sent = await server.sendTransaction(tx);
    if (sent.status !== 'PENDING') throw new Error(`sendTransaction answered ${sent.status}`);
    this.emu.closeLedger();
    const res = await server.getTransaction(sent.hash);
    if (res.status !== 'SUCCESS') {
      const topic = res.status === 'FAILED' ? res.diagnosticEventsXdr?.[0]?.event.body.v0.topics[1] : undefined;
      return {
        error: topic?.type === 'scvError' && topic.error.type === 'sceContract' ? topic.error.contractCode : -1,
        events: [],
      };
    }
    const events = res.events.contractEventsXdr.flat().map((e) => {
      const w = e.toXdrObject();
      return {
        contract: Address.contract(w.contractId as Uint8Array).toString(),
        topics: w.body.v0.topics,
        data: w.body.v0.data,
      };
    });
    return { error: null, events };
  }

  async run(fixture: Fixture, mode: 'direct' | 'rpc'): Promise<WasmStepOutcome[]> {
    const accounts = [
      ...[...this.keys.values()].map((k) => k.publicKey()),
      this.d.book.address,
      this.d.commissionWallet,
    ];
    const admin = this.venue.operator.publicKey();
    const tokens = { base: this.d.base.address, quote: this.d.quote.address };
    const outcomes: WasmStepOutcome[] = [];
    for (const step of fixture.steps) {
      const before = this.balances(accounts);
      let result: CallResult = { error: null, events: [] };
      switch (step.kind) {
        case 'place': {
          const p = step.place;
          const kp = this.keys.get(p.wallet) as Keypair;
          const args = [
            scv.address(kp.publicKey()),
            scv.bytes(
              encodeWasmOrderData({
                quantity: p.quantity,
                price: p.price,
                type: p.type,
                condition: p.condition,
                validity: p.validity,
                lifetimeDays: p.lifetimeDays,
              }),
            ),
            scv.bytes(encodeWasmCrossIdentifier(p.crossId)),
            scv.bytes(new Uint8Array([0])),
          ];
          const fn = p.side === 'buy' ? 'new_buy_order' : 'new_sell_order';
          result = mode === 'rpc' ? await this.viaRpc(kp, fn, args) : this.direct(kp.publicKey(), fn, args);
          break;
        }
        case 'cancel': {
          const kp = this.keys.get(step.cancel.wallet) as Keypair;
          const fn = step.cancel.side === 'buy' ? 'cancel_buy_order' : 'cancel_sell_order';
          const args = [scv.address(kp.publicKey()), scv.u64(step.cancel.orderId)];
          result = mode === 'rpc' ? await this.viaRpc(kp, fn, args) : this.direct(kp.publicKey(), fn, args);
          break;
        }
        case 'adminCancel':
          result = this.direct(
            admin,
            step.adminCancel.side === 'buy' ? 'admin_cancel_buy_order' : 'admin_cancel_sell_order',
            [scv.address(admin), scv.u64(step.adminCancel.orderId)],
          );
          break;
        case 'clear':
          result = this.direct(admin, 'clear_orders', [scv.address(admin)]);
          break;
        case 'setPhase':
          result = this.direct(admin, 'set_phase', [scv.address(admin), scv.sym(PHASES[step.phase])]);
          break;
        case 'advance':
          this.clock.advance(step.seconds * 1000);
          break;
        case 'setStaticReferencePrice':
          result = this.direct(admin, 'set_static_reference_price', [scv.address(admin), scv.u64(step.price)]);
          break;
      }
      if (mode === 'direct') this.emu.closeLedger();
      const decoded = result.events
        .filter((e) => e.contract === this.d.book.address)
        .map((e) => decodeBookEvent(e.topics, e.data, tokens))
        .filter((e) => e !== undefined)
        .map(({ eventId: _id, ...e }) => e);
      const received = decoded.find((e) => e.type === 'OrderReceived');
      const after = this.balances(accounts);
      const deltas: Record<string, Partial<Record<Token, bigint>>> = {};
      for (const a of accounts) {
        for (const t of ['base', 'quote'] as const) {
          const delta = (after.get(`${t}:${a}`) ?? 0n) - (before.get(`${t}:${a}`) ?? 0n);
          if (delta !== 0n) (deltas[this.name(a)] ??= {})[t] = delta;
        }
      }
      const book = this.d.book.book;
      const rename = (o: Book['buys'][number]) => ({ ...o, wallet: this.name(o.wallet) });
      outcomes.push({
        step,
        error: result.error === null ? null : (contractErrorByWasmCode(result.error)?.code ?? `#${result.error}`),
        orderId: received?.orderId ?? null,
        events: decoded.map((e) => normaliseEvent(e, (a) => this.name(a))),
        balanceDeltas: deltas,
        book: { ...book, buys: book.buys.map(rename), sells: book.sells.map(rename) },
      });
    }
    return outcomes;
  }

  private name(account: string): string {
    return this.names.get(account) ?? account;
  }
}

const PHASES = {
  open: 'OpenForTrading',
  closed: 'ClosedForTrading',
  manualHalt: 'ManualHalt',
  automaticHalt: 'AutomaticHalt',
} as const;
