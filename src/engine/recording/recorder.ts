/**
 * Records what the bot saw and did into one file per trading day (Europe/Berlin; format:
 * store/recording-format.ts). Rows are buffered and appended in one transaction every `flushMs` and at close;
 * the first row of a new day closes the old day's file and opens the new one, the pairs written again. A file
 * that reaches `maxBytes` takes no more rows that day: each refused row is counted, the first refusal logged.
 * A row that cannot be written is logged and counted, never thrown at the caller: recording never stops
 * trading.
 */
import type { ChainEvent } from '../../chains/types.ts';
import { toVenueLocal } from '../../core/calendar.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { RecordTable } from '../../store/recording-format.ts';
import { RecordingFile, recordingPath, type RecordRow } from '../../store/recording-file.ts';
import { toJson } from '../../store/json.ts';
import type { Logger } from '../../telemetry/logger.ts';

export interface RecordedPair {
  readonly pairId: string;
  readonly symbol: string;
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  /** The pair's venue binding (rules, scales, commissions). */
  readonly binding: unknown;
  /** The order book's configuration as its contract reported it (funding mode, commissions), when read. */
  readonly state?: unknown;
  /** The wallet's balances of the pair's base and quote tokens (native units) when recording started. */
  readonly balances?: { readonly base: bigint; readonly quote: bigint };
}

export type RecordOutcome = 'written' | 'refused' | 'error';

/** One step of an order action, as the recording keeps it. */
export interface RecordedAction {
  readonly atMs: number;
  readonly stage: 'decided' | 'sent' | 'included' | 'refused';
  readonly type: string;
  readonly clientOrderId?: bigint | null;
  readonly orderId?: bigint | string | null;
  readonly side?: string | null;
  readonly price?: Decimal | null;
  readonly quantity?: Decimal | null;
  readonly level?: number | null;
  readonly txHash?: string | null;
  readonly detail?: string | null;
}

export interface RecorderOptions {
  readonly dir: string;
  readonly maxBytes: number;
  readonly flushMs: number;
  readonly clock: Pick<Clock, 'now' | 'setRepeating'>;
  readonly logger: Logger;
  /** Rows by table and outcome (written, refused by a full file, lost to a write error). */
  readonly count?: (table: RecordTable, outcome: RecordOutcome, n: number) => void;
}

interface Level {
  readonly limit: Decimal;
  readonly quantity: Decimal;
}

const text = (v: { toString(): string } | null | undefined) => (v === null || v === undefined ? null : v.toString());

function pairRow(p: RecordedPair) {
  return {
    ...p,
    binding: toJson(p.binding),
    state: p.state === undefined ? null : toJson(p.state),
    balances: p.balances === undefined ? null : toJson(p.balances),
  };
}

export class Recorder {
  readonly #options: RecorderOptions;
  readonly #pairs = new Map<string, RecordedPair>();
  #buffer: RecordRow[] = [];
  #file: RecordingFile | null = null;
  #day: string | null = null;
  #full = false;
  readonly #timer: Timer;
  #closed = false;

  constructor(options: RecorderOptions) {
    this.#options = options;
    this.#timer = options.clock.setRepeating(() => this.flush(), options.flushMs);
  }

  /** The file being written (null before the first row). */
  get path(): string | null {
    return this.#file?.path ?? null;
  }

  addPair(p: RecordedPair): void {
    this.#pairs.set(p.pairId, p);
    this.#guard(() => this.#file?.pair(pairRow(p)));
  }

  book(b: {
    readonly symbol: string;
    readonly source: string;
    readonly time?: string;
    readonly receivedAt: number;
    readonly buy: readonly Level[];
    readonly sell: readonly Level[];
  }): void {
    const side = (levels: readonly Level[]) =>
      JSON.stringify(levels.map((l) => [l.limit.toFixed(), l.quantity.toFixed()]));
    this.#push('books', [b.receivedAt, b.symbol, b.source, b.time ?? null, side(b.buy), side(b.sell)]);
  }

  tradeInfo(pairId: string, status: unknown, recvMs: number): void {
    this.#push('trade_info', [recvMs, pairId, toJson(status)]);
  }

  chainEvents(chain: 'evm' | 'wasm', events: readonly ChainEvent[], recvMs: number): void {
    for (const e of events) {
      const x = e as Partial<Record<'orderId' | 'price' | 'quantity', bigint>> & {
        client?: string;
        side?: string | null;
      };
      this.#push('chain_events', [
        recvMs,
        chain,
        e.pairId,
        e.height.toString(),
        e.timeMs,
        e.txHash,
        e.key,
        e.type,
        text(x.orderId),
        x.client ?? null,
        x.side ?? null,
        text(x.price),
        text(x.quantity),
        toJson(e),
      ]);
    }
  }

  fairReading(
    pairId: string,
    recvMs: number,
    r: {
      readonly kind: string;
      readonly value: Decimal | null;
      readonly atMs: number | null;
      readonly maxAgeMs: number;
      readonly error: string | null;
    },
  ): void {
    this.#push('fair_inputs', [recvMs, pairId, r.kind, r.value?.toFixed() ?? null, r.atMs, r.maxAgeMs, r.error]);
  }

  action(a: RecordedAction & { readonly pairId: string }): void {
    this.#push('actions', [
      a.atMs,
      a.pairId,
      a.stage,
      a.type,
      text(a.clientOrderId),
      text(a.orderId),
      a.side ?? null,
      a.price?.toFixed() ?? null,
      a.quantity?.toFixed() ?? null,
      a.level ?? null,
      a.txHash ?? null,
      a.detail ?? null,
    ]);
  }

  #push(table: RecordTable, values: RecordRow['values']): void {
    if (!this.#closed) this.#buffer.push({ table, values });
  }

  /** Appends the buffered rows, each to the file of its own day. */
  flush(): void {
    const rows = this.#buffer;
    this.#buffer = [];
    let i = 0;
    while (i < rows.length) {
      const day = toVenueLocal(Number(rows[i]!.values[0])).date;
      let j = i + 1;
      while (j < rows.length && toVenueLocal(Number(rows[j]!.values[0])).date === day) j++;
      this.#write(day, rows.slice(i, j));
      i = j;
    }
  }

  #write(day: string, rows: readonly RecordRow[]): void {
    const ok = this.#guard(() => {
      const file = this.#open(day);
      if (this.#full) return this.#count(rows, 'refused');
      file.append(rows);
      this.#count(rows, 'written');
      if (file.bytes() < this.#options.maxBytes) return;
      this.#full = true;
      this.#options.logger.warn(
        { path: file.path, maxBytes: this.#options.maxBytes },
        'recording file reached its maximum size: nothing more is recorded this day',
      );
    });
    if (!ok) this.#count(rows, 'error');
  }

  /** Runs `fn`; a failure is logged (never thrown). True when it succeeded. */
  #guard(fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (e) {
      this.#options.logger.error({ err: e, path: this.path }, 'recording could not be written');
      return false;
    }
  }

  #count(rows: readonly RecordRow[], outcome: RecordOutcome): void {
    const by = new Map<RecordTable, number>();
    for (const r of rows) by.set(r.table, (by.get(r.table) ?? 0) + 1);
    for (const [table, n] of by) this.#options.count?.(table, outcome, n);
  }

  #open(day: string): RecordingFile {
    if (this.#file !== null && this.#day === day) return this.#file;
    this.#file?.close();
    this.#file = null;
    const file = new RecordingFile(recordingPath(this.#options.dir, day), day, this.#options.clock.now());
    this.#file = file;
    this.#day = day;
    this.#full = false;
    for (const p of this.#pairs.values()) file.pair(pairRow(p));
    return file;
  }

  /** Appends what is buffered and closes the file. */
  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    this.#timer.cancel();
    this.#file?.close();
    this.#file = null;
  }
}
