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
import { commandParts } from '../bootstrap/command.ts';

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
  for (const p of pairs) {
    if (p.baseToken === token) return { symbol: `${p.symbol} base`, scale: p.rules.scales.baseNative };
    if (p.quoteToken === token) return { symbol: `${p.symbol} quote`, scale: p.rules.scales.quoteNative };
  }
  return { symbol: token, scale: 1n };
}

export async function inventoryCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = usageArgs(
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
  const w = await commandParts(values.config, io, { trade: true, logger, metrics: new Metrics() });
  const lines: InventoryLine[] = [];
  let refused = 0;
  try {
    const chosen = w.wallets.filter((x) => values.wallet === undefined || x.id === values.wallet);
    if (chosen.length === 0) throw new DltError('E_USAGE', `no configured wallet ${JSON.stringify(values.wallet)}`);
    for (const wallet of chosen) {
      const engine = wallet.engine;
      if (engine === null) continue;
      // The reconciliation compares the inventory at one point of the chain: a difference the confirmation
      // depth can still explain (our orders filled while we look) is not decided, and raises nothing.
      const reconciled = await engine.start();
      const openAlerts = (token: TokenInventory) =>
        w.store.alerts
          .open({ chain: wallet.chain, wallet: wallet.address, kind: 'inventory-mismatch' })
          .filter((a) => a.pairId !== null && token.pairs.includes(a.pairId)).length;
      if (action === 'rebaseline') {
        // The alerts as they were, for the report: re-basing resolves them.
        const before = await engine.compareInventory();
        const alertsBefore = new Map(before.comparable ? before.tokens.map((t) => [t.token, openAlerts(t)]) : []);
        const report = await engine.rebaselineInventory(note);
        for (const t of report.tokens)
          lines.push(line(wallet, t, alertsBefore.get(t.token) ?? 0, t.difference === 0n ? '' : 're-based', true));
        continue;
      }
      const report = reconciled.inventory;
      if (!report.comparable) {
        io.stderr(`${wallet.id}: not comparable now (${report.reason})\n`);
        refused += 1;
        continue;
      }
      for (const t of report.tokens) lines.push(line(wallet, t, openAlerts(t), '', report.inconclusive !== true));
    }
  } finally {
    await w.close();
  }

  function line(
    wallet: (typeof w.wallets)[number],
    t: TokenInventory,
    alerts: number,
    done: string,
    decided: boolean,
  ): InventoryLine {
    const { symbol, scale } = tokenOf(wallet.pairs, t.token);
    const human = (v: bigint) => formatDecimal(fromScaled(v, scale, `${symbol} amount`));
    return {
      wallet: wallet.address,
      chain: wallet.chain,
      token: t.token,
      symbol,
      pairs: t.pairs,
      onChain: human(t.onChain),
      locked: human(t.locked),
      derived: human(t.total),
      difference: human(t.difference),
      decided,
      openAlerts: alerts,
      action: done,
    };
  }

  if (values.json === true) io.stdout(`${JSON.stringify({ tokens: lines }, null, 2)}\n`);
  else {
    for (const l of lines) {
      io.stdout(
        `${l.wallet.slice(0, 10)}…  ${l.symbol.padEnd(18)} on chain ${l.onChain}  locked ${l.locked}  derived ${l.derived}  difference ${l.difference}` +
          `${l.decided ? '' : ' (not decided: events still arriving; run again)'}` +
          `${l.openAlerts > 0 ? `  (${l.openAlerts} open alert${l.openAlerts === 1 ? '' : 's'})` : ''}${l.action === '' ? '' : `  -> ${l.action}`}\n`,
      );
    }
    const differing = lines.filter((l) => l.difference !== '0' && l.action === '' && l.decided).length;
    io.stdout(
      action === 'rebaseline'
        ? `${lines.filter((l) => l.action !== '').length} token(s) re-based\n`
        : `${lines.length} token(s), ${differing} differing\n`,
    );
  }
  return refused === 0 ? EXIT_OK : EXIT_REFUSED;
}
