/**
 * `dlt-mm run [--config <file>]`: runs the bot until SIGTERM or SIGINT. Without --config it uses
 * `config/local.yaml`, which starts the embedded sandbox. The first signal stops quoting, cancels every order,
 * waits for the cancellations to be final (within `engine.shutdownTimeoutMs`), closes everything and exits 0;
 * a second signal exits at once (state on disk stays consistent: every change is committed as it happens).
 * SIGHUP reloads the strategy files.
 */
import { parseArgs } from 'node:util';
import { composeRun } from '../run/compose.ts';
import { summaryLines } from '../run/summary.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { usageArgs } from '../wiring.ts';

export const RUN_USAGE = `Usage:
  dlt-mm run [--config <file>]    run the bot (default config/local.yaml: the embedded sandbox)`;

export async function runCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = usageArgs(() => parseArgs({ args, options: { config: { type: 'string' } }, strict: true, allowPositionals: false }), RUN_USAGE);
  const tty = process.stdout.isTTY === true;
  const parts = await composeRun({ configPath: values.config ?? 'config/local.yaml', io, tty });
  const { bot, logger, sandbox, telemetry } = parts;
  if (sandbox !== null) {
    const m = sandbox.manifest;
    io.stdout(
      `embedded sandbox ready: REST ${m.venue.restUrl}  WebSocket ${m.venue.wsUrl}  control ${m.venue.controlUrl}\n` +
        `  pairs: ${m.pairs.map((p) => `${p.symbol} (${p.chain})`).join(', ')}\n`,
    );
  }
  io.stdout(`metrics ${telemetry.url}/metrics  health ${telemetry.url}/healthz  ready ${telemetry.url}/readyz\n`);

  let stopping: Promise<number> | null = null;
  const stop = (signal: string): void => {
    if (stopping !== null) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal }, 'stopping: no new quotes, cancelling every order');
    stopping = (async () => {
      const clean = await bot.shutdown(parts.config.engine.shutdownTimeoutMs);
      await parts.close();
      if (clean) logger.info('stopped; no order of ours is left on the book');
      else logger.error('stopped; some orders or transactions could not be confirmed within the deadline (named above): run dlt-mm orders, then dlt-mm cancel-all');
      // The shutdown itself completed: exit 0 either way; the log says what is left to check.
      return EXIT_OK;
    })();
  };
  const onTerm = () => stop('SIGTERM');
  const onInt = () => stop('SIGINT');
  const onHup = () => bot.reload();
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  process.on('SIGHUP', onHup);

  let summary: ReturnType<typeof setInterval> | null = null;
  try {
    await bot.start();
    const symbols = new Map([...bot.loops].map(([id, loop]) => [id, loop.symbol]));
    io.stdout(`trading ${bot.loops.size} pair(s); Ctrl-C stops and cancels every order\n`);
    if (tty) summary = setInterval(() => io.stdout(`${summaryLines(bot, symbols).join('\n')}\n`), 5_000);
  } catch (e) {
    logger.error({ err: e }, 'start-up failed');
    await bot.shutdown(parts.config.engine.shutdownTimeoutMs).catch(() => false);
    await parts.close();
    throw e;
  }
  const code = await new Promise<number>((done) => {
    const wait = setInterval(() => {
      if (stopping !== null) {
        clearInterval(wait);
        void stopping.then(done);
      }
    }, 50);
  });
  if (summary !== null) clearInterval(summary);
  process.off('SIGTERM', onTerm);
  process.off('SIGINT', onInt);
  process.off('SIGHUP', onHup);
  return code;
}
