/**
 * `dlt-mm orders`: the live orders of the configured wallets, the bot's store beside the venue's open-order
 * list, with every difference marked. It only reads (the store is opened read-only), so it is safe while the
 * bot runs. The venue's list lags the chain by a couple of seconds: an order placed or gone in that window
 * shows as a difference until the list catches up.
 */
import type { PairBinding } from '../../chains/types.ts';
import { formatDecimal } from '../../core/decimal.ts';
import { isUnsettled, remainingOf } from '../../core/order-state.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import { readVenueOrder } from '../../engine/wallet/recovery/venue-order-view.ts';
import { createLogger } from '../../telemetry/logger.ts';
import { Metrics } from '../../telemetry/metrics.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { configPairJsonArgs } from '../args.ts';
import { commandParts } from '../bootstrap/command.ts';

export const ORDERS_USAGE = `  dlt-mm orders --config <file> [--pair <pair id>] [--json]
                                      live orders: the store beside the venue's open orders, differences marked`;

export interface OrderRow {
  readonly wallet: string;
  readonly chain: string;
  readonly pairId: string;
  readonly clientOrderId: string | null;
  readonly orderId: string | null;
  readonly side: string | null;
  readonly price: string | null;
  readonly storeStatus: string | null;
  readonly storeRemaining: string | null;
  readonly venueRemaining: string | null;
  /** Empty when store and venue agree. */
  readonly difference: string;
}

export async function ordersCommand(args: string[], io: CliIo): Promise<number> {
  const values = configPairJsonArgs(args, ORDERS_USAGE);
  const logger = createLogger({ level: 'warn', destination: { write: (line: string) => io.stderr(line) } });
  const w = await commandParts(values.config, io, { trade: false, logger, metrics: new Metrics() });
  const rows: OrderRow[] = [];
  try {
    for (const wallet of w.wallets) {
      const pairs = new Map<string, PairBinding>(
        wallet.pairs.filter((p) => values.pair === undefined || p.pairId === values.pair).map((p) => [p.pairId, p]),
      );
      const listed = (await w.rest.getWalletOrders(wallet.address))
        .map(readVenueOrder)
        .filter((v) => v.pairId === null || pairs.has(v.pairId));
      const matched = new Set<string>();
      for (const o of w.store.orders.live({ wallet: wallet.address }).filter((x) => pairs.has(x.pairId))) {
        const s = (pairs.get(o.pairId) as PairBinding).rules.scales;
        const v =
          o.orderId === null
            ? undefined
            : listed.find((x) => x.orderId === o.orderId && (x.pairId === null || x.pairId === o.pairId));
        if (v !== undefined) matched.add(`${o.pairId}#${v.orderId}`);
        const remaining = quantityFromRaw(remainingOf(o), s);
        const difference =
          v === undefined
            ? isUnsettled(o.status)
              ? 'in flight: not on the book yet as far as the store knows'
              : 'not in the venue list (gone, or the list lags)'
            : v.remaining !== null && !v.remaining.eq(remaining)
              ? 'remaining differs'
              : '';
        rows.push({
          wallet: wallet.address,
          chain: wallet.chain,
          pairId: o.pairId,
          clientOrderId: `0x${o.clientOrderId.toString(16)}`,
          orderId: o.orderId?.toString() ?? null,
          side: o.side,
          price: formatDecimal(priceFromRaw(o.price, s)),
          storeStatus: o.status,
          storeRemaining: formatDecimal(remaining),
          venueRemaining: v?.remaining === null || v === undefined ? null : formatDecimal(v.remaining),
          difference,
        });
      }
      for (const v of listed) {
        const pairId = v.pairId ?? '?';
        if (matched.has(`${pairId}#${v.orderId}`)) continue;
        const foreign =
          v.pairId === null ? undefined : w.store.foreign.get(wallet.chain, wallet.address, v.pairId, v.orderId);
        rows.push({
          wallet: wallet.address,
          chain: wallet.chain,
          pairId,
          clientOrderId: null,
          orderId: v.orderId.toString(),
          side: v.side,
          price: v.price === null ? null : formatDecimal(v.price),
          storeStatus: null,
          storeRemaining: null,
          venueRemaining: v.remaining === null ? null : formatDecimal(v.remaining),
          difference:
            foreign === undefined ? 'not in the store' : `not ours (cross identifier ${foreign.crossId ?? 'unknown'})`,
        });
      }
    }
  } finally {
    await w.close();
  }
  if (values.json) io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
  else io.stdout(renderTable(rows));
  return EXIT_OK;
}

function renderTable(rows: readonly OrderRow[]): string {
  if (rows.length === 0) return 'no live orders in the store or at the venue\n';
  const head = [
    'wallet',
    'pair',
    'client id',
    'order id',
    'side',
    'price',
    'store',
    'store open',
    'venue open',
    'difference',
  ];
  const cells = rows.map((r) => [
    `${r.wallet.slice(0, 10)}…`,
    r.pairId,
    r.clientOrderId ?? '-',
    r.orderId ?? '-',
    r.side ?? '?',
    r.price ?? '?',
    r.storeStatus ?? '-',
    r.storeRemaining ?? '-',
    r.venueRemaining ?? '-',
    r.difference === '' ? '' : `≠ ${r.difference}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  const differences = rows.filter((r) => r.difference !== '').length;
  return `${[line(head), ...cells.map(line)].join('\n')}\n${rows.length} order(s), ${differences} difference(s)\n`;
}
