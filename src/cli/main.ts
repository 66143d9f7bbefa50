/** Command dispatch. Every command returns an exit code; a DltError becomes its message and a non-zero code. */
import { DltError } from '../core/errors.ts';
import { AUDIT_USAGE, auditCommand } from './commands/audit.ts';
import { BACKTEST_USAGE, backtestCommand } from './commands/backtest.ts';
import { CHANNELS_USAGE, channelsCommand } from './commands/channels.ts';
import { CONFIG_USAGE, configCommand } from './commands/config.ts';
import { CANCEL_ALL_USAGE, cancelAllCommand } from './commands/cancel-all.ts';
import { FAIR_VALUE_USAGE, fairValueCommand } from './commands/fair-value.ts';
import { INVENTORY_USAGE, inventoryCommand } from './commands/inventory.ts';
import { OBLIGATIONS_USAGE, obligationsCommand } from './commands/obligations.ts';
import { ORDER_USAGE, orderCommand } from './commands/order.ts';
import { ORDERS_USAGE, ordersCommand } from './commands/orders.ts';
import { PRICE_USAGE, priceCommand } from './commands/price.ts';
import { RECORD_USAGE, recordCommand } from './commands/record.ts';
import { REPORT_USAGE, reportCommand } from './commands/report.ts';
import { RUN_USAGE, runCommand } from './commands/run.ts';
import { EXIT_REFUSED, EXIT_USAGE, type CliIo } from './io.ts';

export const USAGE = `dlt-mm: market maker for the venue's smart-contract order books

${ORDER_USAGE}
${CONFIG_USAGE}
${ORDERS_USAGE}
${CANCEL_ALL_USAGE}
${INVENTORY_USAGE}
${FAIR_VALUE_USAGE}
${CHANNELS_USAGE}
${OBLIGATIONS_USAGE}
${REPORT_USAGE}
${AUDIT_USAGE}
${RECORD_USAGE}
${BACKTEST_USAGE}
${PRICE_USAGE}
${RUN_USAGE}
  dlt-mm sandbox [options]            run the local venue in the foreground (dlt-mm sandbox --help)
`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'order':
        return orderCommand(args, io);
      case 'config':
        return configCommand(args, io);
      case 'orders':
        return await ordersCommand(args, io);
      case 'cancel-all':
        return await cancelAllCommand(args, io);
      case 'inventory':
        return await inventoryCommand(args, io);
      case 'fair-value':
        return await fairValueCommand(args, io);
      case 'channels':
        return await channelsCommand(args, io);
      case 'obligations':
        return await obligationsCommand(args, io);
      case 'audit':
        return await auditCommand(args, io);
      case 'report':
        return await reportCommand(args, io);
      case 'price':
        return priceCommand(args, io);
      case 'record':
        return await recordCommand(args, io);
      case 'backtest':
        return await backtestCommand(args, io);
      case 'sandbox':
        // Loaded only when asked for: the local venue is large, and a bot restart should not wait for it.
        return await (await import('./commands/sandbox.ts')).sandboxCommand(args, io);
      case 'run':
        return await runCommand(args, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return command === undefined ? EXIT_USAGE : 0;
      default:
        throw new DltError('E_USAGE', `unknown command ${JSON.stringify(command)}\n${USAGE}`);
    }
  } catch (e) {
    if (e instanceof DltError) {
      io.stderr(`error ${e.code}: ${e.message}\n`);
      return e.code === 'E_USAGE' ? EXIT_USAGE : EXIT_REFUSED;
    }
    throw e;
  }
}
