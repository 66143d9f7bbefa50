/**
 * `dlt-mm fair-value`: every source of each pair's fair value read once now (value, age, whether it is usable
 * and why not), the combined value and the guards against the venue's book; while the bot runs, also what the
 * bot itself decided in its last round (its jump guard needs the history only the running bot has). Read-only:
 * nothing is signed, the state file is not opened, so it is safe while the bot runs.
 */
import { systemClock } from '../../core/system-clock.ts';
import { DltError } from '../../core/errors.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { FairValueReport } from '../../engine/fair-value/report.ts';
import { reportOf } from '../../engine/fair-value/report.ts';
import { StrategyCatalog } from '../../engine/loop/strategy-catalog.ts';
import { createLogger } from '../../telemetry/logger.ts';
import { Metrics } from '../../telemetry/metrics.ts';
import { configPairJsonArgs } from '../args.ts';
import { restClientOf } from '../bootstrap/command.ts';
import { connectionOf } from '../bootstrap/connection.ts';
import { runningEmbeddedManifest } from '../bootstrap/manifest.ts';
import { buildFairValues, fairValueBuildOf } from '../bootstrap/fair-value.ts';
import { walletPairs } from '../bootstrap/pairs.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { botEndpoint } from './bot-endpoint.ts';

export const FAIR_VALUE_USAGE = `  dlt-mm fair-value --config <file> [--pair <id>] [--json]
                                      every fair-value source of each pair read now, the combined value and the
                                      guards (and the running bot's own verdicts); read-only`;

export interface FairValueLine {
  /** Read now by this command. */
  readonly now: FairValueReport;
  /** The running bot's last verdict of the pair; null when the bot does not run (or has none yet). */
  readonly bot: FairValueReport | null;
}

function text(lines: readonly FairValueLine[]): string {
  const out: string[] = [];
  for (const { now, bot } of lines) {
    out.push(
      `${now.pair}: fair ${now.fair ?? 'none'}${now.source === null ? '' : ` (${now.source})`}, action ${now.action}`,
    );
    out.push(`  others' mid (venue book) ${now.othersMid ?? 'none'}, deviation ${now.deviationBps ?? '-'} bp`);
    for (const s of now.sources) {
      const age = s.ageMs === null ? '-' : `${(s.ageMs / 1000).toFixed(1)} s`;
      out.push(
        `  ${s.kind.padEnd(7)} ${(s.value ?? '-').padEnd(24)} age ${age.padEnd(10)} ${s.usable ? 'usable' : `unusable: ${s.reason ?? ''}`}  ${s.origin}`,
      );
    }
    for (const [g, detail] of Object.entries(now.guards)) out.push(`  guard ${g}: ${detail}`);
    if (bot === null) out.push('  bot: not running, or no verdict yet');
    else {
      const guards = Object.keys(bot.guards);
      out.push(
        `  bot (${new Date(bot.atMs).toISOString()}): fair ${bot.fair ?? 'none'}, action ${bot.action}, guards ${guards.length === 0 ? 'none' : guards.join(', ')}`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

/** The book's mid from the venue's REST price levels (every order, ours included); null with a side empty. */
function midOf(book: { buy: readonly { limit: Decimal }[]; sell: readonly { limit: Decimal }[] }): Decimal | null {
  const bid = book.buy[0]?.limit;
  const ask = book.sell[0]?.limit;
  return bid === undefined || ask === undefined ? null : bid.add(ask).div(2);
}

export async function fairValueCommand(args: string[], io: CliIo): Promise<number> {
  const values = configPairJsonArgs(args, FAIR_VALUE_USAGE);
  const setup = checkedSetup(values.config, io);
  const logger = createLogger({ level: 'error', destination: { write: (line: string) => io.stderr(line) } });
  const connection = connectionOf(setup, setup.embedded ? runningEmbeddedManifest(io) : setup.manifest);
  const rest = restClientOf(connection, { logger, metrics: new Metrics() });
  const listed = await rest.listTradingPairs();
  const catalog = new StrategyCatalog((p) => io.readFile(p));
  const pairs = connection.wallets
    .flatMap((w) => walletPairs(listed, w, setup.config))
    .filter((p) => values.pair === undefined || p.binding.pairId === values.pair || p.binding.symbol === values.pair);
  if (values.pair !== undefined && pairs.length === 0)
    throw new DltError('E_USAGE', `--pair ${values.pair}: no traded pair has this id or symbol`);
  const fairValues = buildFairValues(
    pairs.map((p) => ({ ...p, strategy: catalog.load(setup.strategyPath(p.entry)) })),
    {
      ...fairValueBuildOf(connection, setup, rest, logger),
    },
  );
  const bot = await botEndpoint(setup.config, '/fair-value');
  const botReports = new Map(((bot?.pairs ?? []) as FairValueReport[]).map((r) => [r.pair, r]));
  const lines: FairValueLine[] = [];
  for (const fv of fairValues.values()) {
    await Promise.all(fv.sources.map((s) => s.refresh()));
    const mid = midOf(await rest.getPriceLevels(fv.pairId, 1));
    const verdict = fv.evaluate(systemClock.now(), mid);
    lines.push({
      now: reportOf(fv.pairId, verdict, new Map(fv.sources.map((s) => [s.kind, s.origin]))),
      bot: botReports.get(fv.pairId) ?? null,
    });
  }
  if (lines.length === 0) io.stderr('no traded pair has a fairValue block in its strategy\n');
  io.stdout(values.json ? `${JSON.stringify({ pairs: lines }, null, 2)}\n` : text(lines));
  return EXIT_OK;
}
