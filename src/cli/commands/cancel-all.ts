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
import type { ForeignOrderRecord } from '../../store/foreign-orders.ts';
import { createLogger } from '../../telemetry/logger.ts';
import { Metrics } from '../../telemetry/metrics.ts';
import { EXIT_OK, EXIT_REFUSED, type CliIo } from '../io.ts';
import { usageArgs } from '../args.ts';
import { commandParts } from '../bootstrap/command.ts';

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
async function cancelForeign(adapter: ChainAdapter, pair: PairBinding, f: ForeignOrderRecord): Promise<string> {
  const sides: Side[] = f.side === null ? ['buy', 'sell'] : [f.side];
  let last = 'open';
  for (const side of sides) {
    const s = await adapter.submit({ kind: 'cancel', pair, side, orderId: f.orderId });
    const o = await s.outcome;
    if (o.kind === 'accepted') return 'cancelled';
    if (o.kind === 'rejected' && isDltError(o.error, 'E_VENUE_ORDER_NOT_FOUND')) last = 'gone';
    else last = o.kind === 'unknown' ? 'open (outcome unknown)' : `open (${o.error.code})`;
  }
  return last;
}

export async function cancelAllCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = usageArgs(
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
  );
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${CANCEL_ALL_USAGE}`);
  const timeoutMs = values.timeout === undefined ? 120_000 : Number(values.timeout) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new DltError('E_USAGE', `--timeout must be a positive number of seconds\n${CANCEL_ALL_USAGE}`);
  const logger = createLogger({ level: 'warn', destination: { write: (line: string) => io.stderr(line) } });
  const w = await commandParts(values.config, io, { trade: true, logger, metrics: new Metrics() });
  const lines: CancelLine[] = [];
  try {
    for (const wallet of w.wallets) {
      const engine = wallet.engine;
      const adapter = wallet.adapter;
      if (engine === null || adapter === null) continue;
      const pairs = wallet.pairs.filter((p) => values.pair === undefined || p.pairId === values.pair);
      if (pairs.length === 0) continue;
      const report = await engine.start();
      for (const id of report.adopted)
        io.stderr(`${wallet.id}: adopted order 0x${id.toString(16)}, ours but unknown to the store\n`);
      const results = await Promise.all(pairs.map((p) => engine.cancelAll({ pairId: p.pairId, timeoutMs })));
      for (const [i, r] of results.entries()) {
        const s = (pairs[i] as PairBinding).rules.scales;
        for (const o of [...r.final, ...r.open]) {
          lines.push({
            wallet: wallet.address,
            pairId: o.pairId,
            clientOrderId: `0x${o.clientOrderId.toString(16)}`,
            orderId: o.orderId?.toString() ?? null,
            side: o.side,
            price: formatDecimal(priceFromRaw(o.price, s)),
            remaining: formatDecimal(quantityFromRaw(o.quantity - o.filled, s)),
            result: r.open.includes(o) ? `open (${o.status})` : o.status,
          });
        }
      }
      for (const f of w.store.foreign
        .open(wallet.chain, wallet.address)
        .filter((x) => pairs.some((p) => p.pairId === x.pairId))) {
        const pair = pairs.find((p) => p.pairId === f.pairId) as PairBinding;
        const result = await cancelForeign(adapter, pair, f);
        if (result === 'cancelled' || result === 'gone')
          w.store.foreign.gone(wallet.chain, wallet.address, f.pairId, f.orderId);
        lines.push({
          wallet: wallet.address,
          pairId: f.pairId,
          clientOrderId: null,
          orderId: f.orderId.toString(),
          side: f.side,
          price: f.price?.toString() ?? null,
          remaining: f.quantity?.toString() ?? null,
          result: `${result} (not ours)`,
        });
      }
    }
  } finally {
    await w.close(timeoutMs);
  }
  const open = lines.filter((l) => l.result.startsWith('open'));
  if (values.json === true) io.stdout(`${JSON.stringify({ orders: lines, open: open.length }, null, 2)}\n`);
  else {
    for (const l of lines)
      io.stdout(
        `${l.wallet.slice(0, 10)}…  ${l.pairId}  ${l.clientOrderId ?? '-'}  order ${l.orderId ?? '-'}  ${l.side ?? '?'} ${l.remaining ?? '?'} @ ${l.price ?? '?'}  -> ${l.result}\n`,
      );
    io.stdout(`${lines.length} order(s) handled, ${open.length} still open\n`);
  }
  return open.length === 0 ? EXIT_OK : EXIT_REFUSED;
}
