/**
 * The chain B node the sandbox runs instead of a Soroban network: accounts, contracts written in TypeScript,
 * a transaction queue with one pending transaction per source account, ledgers that close on a timer (or on
 * `closeLedger()`), applied transactions and events kept for a retention window. The RPC server is a thin
 * JSON layer over this class; the sandbox and tests also drive it directly through the control methods.
 */
import { randomBytes } from 'node:crypto';
import { Networks, xdr } from '@stellar/stellar-sdk';
import { TRUSTED } from './auth.ts';
import { applyTransaction, type AppliedTx } from './apply.ts';
import { genesisLedger, sealLedger, type LedgerRecord } from './chain.ts';
import { sha256 } from './crypto.ts';
import { EventStore, ledgerEvents, type StoredEvent } from './events-store.ts';
import type { AccountState, ContractImpl, EmittedEvent, World } from './host.ts';
import { runInvocation, type InvocationOutcome, type InvocationRequest } from './invoke.ts';
import { findEntry, type FoundEntry } from './ledger-entries.ts';
import { checkTransaction, inclusionBid, minimumFee, parseEnvelope, refused, TX, type ParsedTx } from './tx-check.ts';
import type { Clock } from '../../core/clock.ts';
import { systemClock } from '../../core/system-clock.ts';

export interface EmulatorOptions {
  readonly passphrase?: string;
  readonly clock?: Pick<Clock, 'now'>;
  /** Ledger close interval; 0 closes only on `closeLedger()`. Default 5000. */
  readonly ledgerIntervalMs?: number;
  /** Ledgers of transactions and events kept. Default 120960 (about 7 days). */
  readonly retentionLedgers?: number;
  /** Sequence of the first ledger. Default 1000. */
  readonly firstLedger?: number;
  /** Random source for authorization nonces. */
  readonly randomNonce?: () => bigint;
}

export type SendStatus = 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER' | 'ERROR';

export interface SendResult {
  readonly status: SendStatus;
  readonly hash: string;
  /** TransactionResult (base64) when the status is ERROR. */
  readonly errorResultXdr?: string;
}

export interface ClosedLedger {
  readonly ledger: LedgerRecord;
  readonly transactions: readonly AppliedTx[];
  readonly events: readonly StoredEvent[];
  /** Hashes of queued transactions whose time bounds expired before this ledger: never applied. */
  readonly dropped: readonly string[];
}

interface ControlRecord {
  readonly hash: string;
  readonly events: readonly EmittedEvent[];
}

export class WasmEmulator {
  readonly world: World;
  readonly clock: Pick<Clock, 'now'>;
  readonly ledgerIntervalMs: number;
  readonly retentionLedgers: number;
  readonly randomNonce: () => bigint;
  /** Sequence and close time of every retained ledger (the full header is kept for the latest only). */
  private readonly ledgers: Array<{ readonly seq: number; readonly closeTime: bigint }> = [];
  private ledgerHead = 0;
  private latestLedger: LedgerRecord;
  private readonly txs = new Map<string, AppliedTx>();
  private readonly pending: ParsedTx[] = [];
  private readonly pendingBySource = new Map<string, string>();
  private controls: ControlRecord[] = [];
  private controlCounter = 0;
  private readonly store = new EventStore();
  private readonly listeners = new Set<(closed: ClosedLedger) => void>();
  private timer: NodeJS.Timeout | null = null;

  constructor(options: EmulatorOptions = {}) {
    const passphrase = options.passphrase ?? Networks.STANDALONE;
    this.world = {
      passphrase,
      networkId: sha256(Buffer.from(passphrase)),
      contracts: new Map(),
      accounts: new Map(),
      nonces: new Map(),
    };
    this.clock = options.clock ?? systemClock;
    this.ledgerIntervalMs = options.ledgerIntervalMs ?? 5000;
    this.retentionLedgers = options.retentionLedgers ?? 120_960;
    this.randomNonce = options.randomNonce ?? (() => randomBytes(8).readBigInt64BE());
    this.latestLedger = genesisLedger(options.firstLedger ?? 1000, this.nowSeconds());
    this.ledgers.push({ seq: this.latestLedger.seq, closeTime: this.latestLedger.closeTime });
  }

  get passphrase(): string {
    return this.world.passphrase;
  }

  get latest(): LedgerRecord {
    return this.latestLedger;
  }

  get oldest(): { readonly seq: number; readonly closeTime: bigint } {
    return this.ledgers[this.ledgerHead] as { seq: number; closeTime: bigint };
  }

  nowSeconds(): bigint {
    return BigInt(Math.floor(this.clock.now() / 1000));
  }

  /**
   * The close time the next ledger will have: the clock, never before the previous close. Ledgers closing
   * faster than one a second share their second: forcing each one a second later would run the chain's
   * time ahead of the clock (two ledgers a second gain a second every second), and every transaction whose
   * time bound is taken from the clock would soon count as expired.
   */
  nextCloseTime(): bigint {
    const now = this.nowSeconds();
    return now > this.latest.closeTime ? now : this.latest.closeTime;
  }

  /** Starts closing ledgers every `ledgerIntervalMs` (no-op in manual mode). */
  start(): void {
    if (this.ledgerIntervalMs <= 0 || this.timer !== null) return;
    this.timer = setInterval(() => this.closeLedger(), this.ledgerIntervalMs);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  onLedgerClosed(listener: (closed: ClosedLedger) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The most transactions the queue holds for the next ledger; null, no limit (the default). When it is full
   * the network's surge pricing applies: a transaction bidding a higher inclusion fee per operation than the
   * lowest in the queue evicts that one (dropped: it never applies), any other gets TRY_AGAIN_LATER.
   */
  queueCapacity: number | null = null;

  submit(envelopeB64: string): SendResult {
    const parsed = parseEnvelope(envelopeB64, this.world.networkId);
    if ('unsupported' in parsed) return refused(parsed.unsupported, TX.notSupported, 0n);
    if (this.pendingBySource.get(parsed.source) === parsed.hash) return { status: 'DUPLICATE', hash: parsed.hash };
    if (this.pendingBySource.has(parsed.source)) return { status: 'TRY_AGAIN_LATER', hash: parsed.hash };
    const code = checkTransaction(parsed, this.world, this.nowSeconds());
    if (code !== null) return refused(parsed.hash, code, minimumFee(parsed));
    if (this.queueCapacity !== null && this.pending.length >= this.queueCapacity) {
      const lowest = this.pending.reduce<ParsedTx | null>(
        (low, p) => (low === null || inclusionBid(p) < inclusionBid(low) ? p : low),
        null,
      );
      if (lowest === null || inclusionBid(parsed) <= inclusionBid(lowest))
        return { status: 'TRY_AGAIN_LATER', hash: parsed.hash };
      this.pending.splice(this.pending.indexOf(lowest), 1);
      this.pendingBySource.delete(lowest.source);
    }
    this.pending.push(parsed);
    this.pendingBySource.set(parsed.source, parsed.hash);
    return { status: 'PENDING', hash: parsed.hash };
  }

  /** Closes the next ledger: applies the queue in order, drops what expired, records results and events. */
  closeLedger(): ClosedLedger {
    const seq = this.latest.seq + 1;
    const closeTime = this.nextCloseTime();
    const applied: AppliedTx[] = [];
    const dropped: string[] = [];
    const queue = this.pending.splice(0);
    this.pendingBySource.clear();
    let order = this.controls.length;
    for (const queued of queue) {
      const account = this.world.accounts.get(queued.source);
      const expired = (queued.maxTime !== 0n && queued.maxTime < closeTime) || queued.minTime > closeTime;
      if (
        expired ||
        account === undefined ||
        account.seqNum + 1n !== queued.seqNum ||
        account.balance < minimumFee(queued)
      ) {
        dropped.push(queued.hash);
        continue;
      }
      applied.push(applyTransaction(this.world, queued, seq, closeTime, ++order));
    }
    const digest = sha256(
      Buffer.from([...this.controls.map((c) => c.hash), ...applied.map((t) => t.resultB64)].join('|')),
    );
    const ledger = sealLedger(this.latest, seq, closeTime, digest, applied.length + this.controls.length);
    this.latestLedger = ledger;
    this.ledgers.push({ seq, closeTime });
    const events = ledgerEvents(ledger, [...this.controls, ...applied]);
    for (const event of events) this.store.add(event);
    for (const t of applied) this.txs.set(t.hash, t);
    this.controls = [];
    this.trim();
    const closed = { ledger, transactions: applied, events, dropped };
    for (const l of this.listeners) l(closed);
    return closed;
  }

  private trim(): void {
    const oldest = this.latest.seq - this.retentionLedgers + 1;
    while (this.oldest.seq < oldest) {
      const gone = this.oldest;
      this.ledgerHead++;
      for (const [hash, t] of this.txs) {
        if (t.ledger > gone.seq) break;
        this.txs.delete(hash);
      }
    }
    if (this.ledgerHead > 1024) {
      this.ledgers.splice(0, this.ledgerHead);
      this.ledgerHead = 0;
    }
    this.store.trim(oldest);
  }

  transaction(hash: string): AppliedTx | undefined {
    return this.txs.get(hash);
  }

  events(): EventStore {
    return this.store;
  }

  ledgerEntry(key: xdr.LedgerKeyWire): FoundEntry | undefined {
    return findEntry(this.world, key, this.latest.seq);
  }

  isPending(hash: string): boolean {
    return this.pending.some((p) => p.hash === hash);
  }

  // --- control API -------------------------------------------------------------------------------------

  /** Creates the account with `stroops`, or adds them to an existing one. */
  fundAccount(publicKey: string, stroops: bigint): AccountState {
    const existing = this.world.accounts.get(publicKey);
    if (existing !== undefined) {
      existing.balance += stroops;
      existing.lastModified = this.latest.seq;
      return existing;
    }
    const created: AccountState = {
      id: publicKey,
      balance: stroops,
      seqNum: BigInt(this.latest.seq) << 32n,
      lastModified: this.latest.seq,
    };
    this.world.accounts.set(publicKey, created);
    return created;
  }

  addContract(contract: ContractImpl): void {
    this.world.contracts.set(contract.address, contract);
  }

  /**
   * The operator's own call, applied at once in the ledger being built (no signature, every address counts as
   * authorized); its events appear with that ledger. A failed call changes nothing.
   */
  control(req: InvocationRequest): InvocationOutcome {
    const out = runInvocation(
      { world: this.world, ledgerSeq: this.latest.seq + 1, closeTime: this.nextCloseTime(), auth: TRUSTED },
      req,
    );
    if (out.ok) {
      const hash = Buffer.from(sha256(Buffer.from(`control:${this.latest.seq + 1}:${++this.controlCounter}`))).toString(
        'hex',
      );
      this.controls.push({ hash, events: out.events });
    }
    return out;
  }

  /** A read-only call against the current state (nothing is kept). */
  read(req: InvocationRequest): InvocationOutcome {
    return runInvocation(
      {
        world: this.world,
        ledgerSeq: this.latest.seq + 1,
        closeTime: this.nextCloseTime(),
        auth: TRUSTED,
        dryRun: true,
      },
      req,
    );
  }
}
