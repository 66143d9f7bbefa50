/**
 * `dlt-mm cancel-all`: cancels every resting order of the configured wallets on both chains (optionally one
 * pair) and waits until each cancellation is final on chain. Each wallet is reconciled first, so orders of
 * ours the store did not know are adopted and cancelled too; orders of the wallet that are not ours are
 * cancelled as well (they are the wallet's) and named. Exits 1 when anything is still open at the deadline.
 * Run it with the bot stopped: two processes sending from one wallet would fight over its nonces.
 */
import { parseArgs } from 'node:util';
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import { formatDecimal } from '../../core/decimal.ts';
import { DltError, isDltError } from '../../core/errors.ts';
import type { Side } from '../../core/order-terms.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import type { WalletEngine } from '../../engine/wallet/wallet-engine.ts';
import type { ForeignOrderRecord } from '../../store/foreign-orders.ts';
import type { Store } from '../../store/store.ts';
import { createLogger } from '../../telemetry/logger.ts';
import { Metrics } from '../../telemetry/metrics.ts';
import { EXIT_OK, EXIT_REFUSED, type CliIo } from '../io.ts';
import { usageArgs } from '../args.ts';
import { commandParts, type CommandWallet } from '../bootstrap/command.ts';

export const CANCEL_ALL_USAGE = `  dlt-mm cancel-all --config <file> [--pair <pair id>] [--timeout <seconds>] [--json]
                                      cancel every resting order of the wallets and wait until final`;

export interface CancelLine {
  readonly wallet: string;
  readonly pairId: string;
  readonly clientOrderId: string | null;
  readonly orderId: string | null;
  readonly side: string | null;
  readonly price: string | null;
  readonly remaining: string | null;
  /** cancelled, filled, rejected (never placed), or open (not final at the deadline). */
  readonly result: string;
}

/** Cancels an order that is not ours; without a known side both are tried (the wrong one is refused as not found). */
async function cancelForeign(adapter: ChainAdapter, pair: PairBinding, foreign: ForeignOrderRecord): Promise<string> {
  const sides: Side[] = foreign.side === null ? ['buy', 'sell'] : [foreign.side];
  let last = 'open';
  for (const side of sides) {
    const submitted = await adapter.submit({ kind: 'cancel', pair, side, orderId: foreign.orderId });
    const outcome = await submitted.outcome;
    if (outcome.kind === 'accepted') return 'cancelled';
    if (outcome.kind === 'rejected' && isDltError(outcome.error, 'E_VENUE_ORDER_NOT_FOUND')) last = 'gone';
    else last = outcome.kind === 'unknown' ? 'open (outcome unknown)' : `open (${outcome.error.code})`;
  }
  return last;
}

function parseCancelAllArgs(args: string[]) {
  return usageArgs(
    () =>
      parseArgs({
        args,
        options: {
          config: { type: 'string' },
          pair: { type: 'string' },
          timeout: { type: 'string' },
          json: { type: 'boolean' },
        },
        strict: true,
      }),
    CANCEL_ALL_USAGE,
  ).values;
}

/** Cancels the wallet's own orders on `pairs` (adopting those the store did not know) and waits until final. */
async function cancelOwn(
  engine: WalletEngine,
  wallet: CommandWallet,
  pairs: readonly PairBinding[],
  timeoutMs: number,
  io: CliIo,
): Promise<CancelLine[]> {
  const report = await engine.start();
  for (const id of report.adopted)
    io.stderr(`${wallet.id}: adopted order 0x${id.toString(16)}, ours but unknown to the store\n`);
  const results = await Promise.all(pairs.map((pair) => engine.cancelAll({ pairId: pair.pairId, timeoutMs })));
  const lines: CancelLine[] = [];
  for (const [index, result] of results.entries()) {
    const scales = (pairs[index] as PairBinding).rules.scales;
    for (const order of [...result.final, ...result.open]) {
      lines.push({
        wallet: wallet.address,
        pairId: order.pairId,
        clientOrderId: `0x${order.clientOrderId.toString(16)}`,
        orderId: order.orderId?.toString() ?? null,
        side: order.side,
        price: formatDecimal(priceFromRaw(order.price, scales)),
        remaining: formatDecimal(quantityFromRaw(order.quantity - order.filled, scales)),
        result: result.open.includes(order) ? `open (${order.status})` : order.status,
      });
    }
  }
  return lines;
}

/** Cancels the orders of the wallet on `pairs` that are not ours, as the store knows them. */
async function cancelNotOurs(
  store: Store,
  adapter: ChainAdapter,
  wallet: CommandWallet,
  pairs: readonly PairBinding[],
): Promise<CancelLine[]> {
  const lines: CancelLine[] = [];
  for (const foreign of store.foreign
    .open(wallet.chain, wallet.address)
    .filter((order) => pairs.some((pair) => pair.pairId === order.pairId))) {
    const pair = pairs.find((candidate) => candidate.pairId === foreign.pairId) as PairBinding;
    const result = await cancelForeign(adapter, pair, foreign);
    if (result === 'cancelled' || result === 'gone')
      store.foreign.gone(wallet.chain, wallet.address, foreign.pairId, foreign.orderId);
    lines.push({
      wallet: wallet.address,
      pairId: foreign.pairId,
      clientOrderId: null,
      orderId: foreign.orderId.toString(),
      side: foreign.side,
      price: foreign.price?.toString() ?? null,
      remaining: foreign.quantity?.toString() ?? null,
      result: `${result} (not ours)`,
    });
  }
  return lines;
}

function printLines(lines: readonly CancelLine[], open: number, io: CliIo): void {
  for (const line of lines)
    io.stdout(
      `${line.wallet.slice(0, 10)}…  ${line.pairId}  ${line.clientOrderId ?? '-'}  order ${line.orderId ?? '-'}  ${line.side ?? '?'} ${line.remaining ?? '?'} @ ${line.price ?? '?'}  -> ${line.result}\n`,
    );
  io.stdout(`${lines.length} order(s) handled, ${open} still open\n`);
}

export async function cancelAllCommand(args: string[], io: CliIo): Promise<number> {
  const values = parseCancelAllArgs(args);
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${CANCEL_ALL_USAGE}`);
  const timeoutMs = values.timeout === undefined ? 120_000 : Number(values.timeout) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new DltError('E_USAGE', `--timeout must be a positive number of seconds\n${CANCEL_ALL_USAGE}`);
  const logger = createLogger({ level: 'warn', destination: { write: (line: string) => io.stderr(line) } });
  const parts = await commandParts(values.config, io, { trade: true, logger, metrics: new Metrics() });
  const lines: CancelLine[] = [];
  try {
    for (const wallet of parts.wallets) {
      const { engine, adapter } = wallet;
      if (engine === null || adapter === null) continue;
      const pairs = wallet.pairs.filter((pair) => values.pair === undefined || pair.pairId === values.pair);
      if (pairs.length === 0) continue;
      lines.push(...(await cancelOwn(engine, wallet, pairs, timeoutMs, io)));
      lines.push(...(await cancelNotOurs(parts.store, adapter, wallet, pairs)));
    }
  } finally {
    await parts.close(timeoutMs);
  }
  const open = lines.filter((line) => line.result.startsWith('open'));
  if (values.json === true) io.stdout(`${JSON.stringify({ orders: lines, open: open.length }, null, 2)}\n`);
  else printLines(lines, open.length, io);
  return open.length === 0 ? EXIT_OK : EXIT_REFUSED;
}
