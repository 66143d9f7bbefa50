/**
 * `dlt-mm inventory`: the inventory the bot derives from its fills beside the wallets' on-chain balances, per
 * token, and `dlt-mm inventory rebaseline --note <why>`: the operator's answer to a difference the chain is
 * right about (a deposit, a withdrawal, a transfer made by hand), which pauses the pairs of the token until it
 * is explained. Re-basing sets the derived totals from the on-chain balances and resolves the open inventory
 * alerts with the note; the pairs trade again at the next start. Both reconcile each wallet first (events
 * caught up, unknown outcomes settled), so they claim the state file: run them with the bot stopped.
 */
import { parseArgs } from 'node:util';
import type { PairBinding } from '../../chains/types.ts';
import { formatDecimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { fromScaled } from '../../core/units.ts';
import type { TokenInventory } from '../../engine/wallet/inventory/inventory-check.ts';
import { createLogger } from '../../telemetry/logger.ts';
import { Metrics } from '../../telemetry/metrics.ts';
import { EXIT_OK, EXIT_REFUSED, type CliIo } from '../io.ts';
import { usageArgs } from '../args.ts';
import { commandParts, type CommandParts, type CommandWallet } from '../bootstrap/command.ts';

export const INVENTORY_USAGE = `  dlt-mm inventory [rebaseline --note <why>] --config <file> [--wallet <id>] [--json]
                                      derived inventory beside on-chain balances; rebaseline accepts the chain's`;

export interface InventoryLine {
  readonly wallet: string;
  readonly chain: string;
  readonly token: string;
  /** The token's role in a pair that trades it, e.g. `BOND26EURe quote`. */
  readonly symbol: string;
  readonly pairs: readonly string[];
  readonly onChain: string;
  readonly locked: string;
  /** What the fills say the wallet holds, free plus locked. */
  readonly derived: string;
  /** On-chain free minus derived free; zero when the two agree. */
  readonly difference: string;
  /**
   * False when no comparison could be decided: every look raced events the chain had not confirmed to the bot
   * yet (the market filling our orders), which the difference may only reflect. Nothing was raised then.
   */
  readonly decided: boolean;
  readonly openAlerts: number;
  /** `re-based` when this run accepted the on-chain balance. */
  readonly action: string;
}

/** A label for the token (its role in a pair that trades it) and its native scale. */
function tokenOf(pairs: readonly PairBinding[], token: string): { symbol: string; scale: bigint } {
  for (const pair of pairs) {
    if (pair.baseToken === token) return { symbol: `${pair.symbol} base`, scale: pair.rules.scales.baseNative };
    if (pair.quoteToken === token) return { symbol: `${pair.symbol} quote`, scale: pair.rules.scales.quoteNative };
  }
  return { symbol: token, scale: 1n };
}

function parseInventoryArgs(args: string[]) {
  return usageArgs(
    () =>
      parseArgs({
        args,
        options: {
          config: { type: 'string' },
          wallet: { type: 'string' },
          note: { type: 'string' },
          json: { type: 'boolean' },
        },
        allowPositionals: true,
        strict: true,
      }),
    INVENTORY_USAGE,
  );
}

/** The line of one token of a wallet, its amounts in the token's human units. */
function inventoryLine(
  wallet: CommandWallet,
  token: TokenInventory,
  alerts: number,
  done: string,
  decided: boolean,
): InventoryLine {
  const { symbol, scale } = tokenOf(wallet.pairs, token.token);
  const human = (value: bigint) => formatDecimal(fromScaled(value, scale, `${symbol} amount`));
  return {
    wallet: wallet.address,
    chain: wallet.chain,
    token: token.token,
    symbol,
    pairs: token.pairs,
    onChain: human(token.onChain),
    locked: human(token.locked),
    derived: human(token.total),
    difference: human(token.difference),
    decided,
    openAlerts: alerts,
    action: done,
  };
}

/** One wallet's lines: compared (null when not comparable now), or re-based from the chain with `note`. */
async function walletLines(
  parts: CommandParts,
  wallet: CommandWallet,
  rebaseline: string | null,
  io: CliIo,
): Promise<InventoryLine[] | null> {
  const engine = wallet.engine;
  if (engine === null) return [];
  // The reconciliation compares the inventory at one point of the chain: a difference the confirmation
  // depth can still explain (our orders filled while we look) is not decided, and raises nothing.
  const reconciled = await engine.start();
  const openAlerts = (token: TokenInventory) =>
    parts.store.alerts
      .open({ chain: wallet.chain, wallet: wallet.address, kind: 'inventory-mismatch' })
      .filter((alert) => alert.pairId !== null && token.pairs.includes(alert.pairId)).length;
  if (rebaseline !== null) {
    // The alerts as they were, for the report: re-basing resolves them.
    const before = await engine.compareInventory();
    const alertsBefore = new Map(
      before.comparable ? before.tokens.map((token) => [token.token, openAlerts(token)]) : [],
    );
    const report = await engine.rebaselineInventory(rebaseline);
    return report.tokens.map((token) =>
      inventoryLine(wallet, token, alertsBefore.get(token.token) ?? 0, token.difference === 0n ? '' : 're-based', true),
    );
  }
  const report = reconciled.inventory;
  if (!report.comparable) {
    io.stderr(`${wallet.id}: not comparable now (${report.reason})\n`);
    return null;
  }
  return report.tokens.map((token) =>
    inventoryLine(wallet, token, openAlerts(token), '', report.inconclusive !== true),
  );
}

function printLines(lines: readonly InventoryLine[], rebaselined: boolean, io: CliIo): void {
  for (const line of lines) {
    io.stdout(
      `${line.wallet.slice(0, 10)}…  ${line.symbol.padEnd(18)} on chain ${line.onChain}  locked ${line.locked}  derived ${line.derived}  difference ${line.difference}` +
        `${line.decided ? '' : ' (not decided: events still arriving; run again)'}` +
        `${line.openAlerts > 0 ? `  (${line.openAlerts} open alert${line.openAlerts === 1 ? '' : 's'})` : ''}${line.action === '' ? '' : `  -> ${line.action}`}\n`,
    );
  }
  const differing = lines.filter((line) => line.difference !== '0' && line.action === '' && line.decided).length;
  io.stdout(
    rebaselined
      ? `${lines.filter((line) => line.action !== '').length} token(s) re-based\n`
      : `${lines.length} token(s), ${differing} differing\n`,
  );
}

export async function inventoryCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseInventoryArgs(args);
  const action = positionals[0];
  if (positionals.length > 1 || (action !== undefined && action !== 'rebaseline'))
    throw new DltError(
      'E_USAGE',
      `unknown inventory action ${JSON.stringify(positionals.join(' '))}\n${INVENTORY_USAGE}`,
    );
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${INVENTORY_USAGE}`);
  const note = values.note?.trim() ?? '';
  if (action === 'rebaseline' && note === '')
    throw new DltError(
      'E_USAGE',
      `rebaseline needs --note <why> (it is kept with the resolved alerts)\n${INVENTORY_USAGE}`,
    );
  const logger = createLogger({ level: 'warn', destination: { write: (line: string) => io.stderr(line) } });
  const parts = await commandParts(values.config, io, { trade: true, logger, metrics: new Metrics() });
  const lines: InventoryLine[] = [];
  let refused = 0;
  try {
    const chosen = parts.wallets.filter((wallet) => values.wallet === undefined || wallet.id === values.wallet);
    if (chosen.length === 0) throw new DltError('E_USAGE', `no configured wallet ${JSON.stringify(values.wallet)}`);
    for (const wallet of chosen) {
      const walletResult = await walletLines(parts, wallet, action === 'rebaseline' ? note : null, io);
      if (walletResult === null) refused += 1;
      else lines.push(...walletResult);
    }
  } finally {
    await parts.close();
  }
  if (values.json === true) io.stdout(`${JSON.stringify({ tokens: lines }, null, 2)}\n`);
  else printLines(lines, action === 'rebaseline', io);
  return refused === 0 ? EXIT_OK : EXIT_REFUSED;
}
