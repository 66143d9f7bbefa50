/**
 * `dlt-mm run [--config <file>] [--log-file <file>]`: runs the bot until SIGTERM or SIGINT. Without --config
 * it uses `config/local.yaml`, which starts the embedded sandbox. The first signal stops quoting, cancels every
 * order, waits for the cancellations to be final (within `engine.shutdownTimeoutMs`), closes everything and
 * exits 0; a second signal exits at once (state on disk stays consistent: every change is committed as it
 * happens). SIGHUP reloads the strategy files.
 *
 * On a terminal the screen shows the live board (src/cli/board/) and the log goes to a file; off a terminal
 * the log goes to standard output as JSON lines (and to the file too when --log-file is given).
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LiveBoard } from '../board/live-board.ts';
import { snapshot } from '../board/snapshot.ts';
import { RecentWarnings } from '../board/warnings.ts';
import { composeRun } from '../bootstrap/run.ts';
import { LogFile, teeLines } from '../run/log-output.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { usageArgs } from '../args.ts';
import { trackerObligations } from '../board/obligations.ts';

export const RUN_USAGE = `Usage:
  dlt-mm run [--config <file>] [--log-file <file>]
                                      run the bot (default config/local.yaml: the embedded sandbox); on a
                                      terminal it draws a live board and logs to a file (default: beside the store)`;

function shortPath(cwd: string, path: string): string {
  const r = relative(cwd, path);
  return r === '' || r.startsWith('..') || isAbsolute(r) ? path : r;
}

/** How often the board is redrawn. */
const BOARD_REDRAW_MS = 1_000;

export async function runCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = usageArgs(
    () =>
      parseArgs({
        args,
        options: { config: { type: 'string' }, 'log-file': { type: 'string' } },
        strict: true,
        allowPositionals: false,
      }),
    RUN_USAGE,
  );
  const tty = process.stdout.isTTY === true;
  const chosenLog = values['log-file'] === undefined ? undefined : resolve(io.cwd, values['log-file']);
  const warnings = new RecentWarnings();
  const log: { file: LogFile | null } = { file: null };
  const logTo =
    tty || chosenLog !== undefined
      ? (defaultPath: string) => {
          const file = new LogFile(chosenLog ?? defaultPath);
          log.file = file;
          return teeLines(tty ? [file, warnings] : [file, { write: (line) => io.stdout(line) }]);
        }
      : undefined;
  const parts = await composeRun({
    configPath: values.config ?? 'config/local.yaml',
    io,
    tty,
    ...(logTo === undefined ? {} : { logTo }),
  });
  const { bot, logger, sandbox, telemetry } = parts;
  // Shown relative to the working directory when it lies below it.
  const logPath = log.file === null ? null : shortPath(io.cwd, log.file.path);
  if (sandbox !== null) {
    const m = sandbox.manifest;
    io.stdout(
      `embedded sandbox ready: REST ${m.venue.restUrl}  WebSocket ${m.venue.wsUrl}  control ${m.venue.controlUrl}\n` +
        `  pairs: ${m.pairs.map((p) => `${p.symbol} (${p.chain})`).join(', ')}\n`,
    );
  }
  io.stdout(`metrics ${telemetry.url}/metrics  health ${telemetry.url}/healthz  ready ${telemetry.url}/readyz\n`);
  if (logPath !== null) io.stdout(`log ${logPath}\n`);
  if (tty) io.stdout('\n');

  // On a terminal the board owns the screen from here on: nothing else is written to it until it stops.
  const board = tty
    ? new LiveBoard({
        stream: process.stdout,
        snapshot: () =>
          snapshot({
            bot,
            engines: parts.engines,
            warnings,
            logPath,
            now: Date.now,
            // The obligation columns (spread against the maximum, presence today against the target).
            obligations: trackerObligations(parts.obligations),
            // One markout horizon (evaluation.boardHorizonMs) of each pair's fills.
            markout: (pairId) => {
              const e = bot.evaluations.get(pairId);
              const h = parts.config.evaluation.boardHorizonMs;
              return e === undefined ? null : { horizonMs: h, bps: e.markouts(h)?.all.bps ?? null };
            },
          }),
        every: (ms, fn) => {
          const t = setInterval(fn, ms);
          return () => clearInterval(t);
        },
        intervalMs: BOARD_REDRAW_MS,
        color: process.stdout.hasColors(),
        onError: (e) => logger.error({ err: e }, 'the terminal board cannot be drawn'),
      })
    : null;
  const onResize = () => board?.draw();
  // A terminal closed under the bot (SIGHUP only reloads the strategies) fails every write to it, on standard
  // output and on standard error (where the cursor is hidden): the board stops and the bot runs on, logging
  // to its file, until SIGTERM. Without these listeners the first failed write would end the process with
  // every order left on the book.
  let screenGone = false;
  const onScreenError = (e: unknown) => {
    if (screenGone) return;
    screenGone = true;
    board?.detach();
    logger.warn({ err: e }, 'the terminal is gone: the board stops drawing; the bot runs on until SIGTERM');
  };
  const say = (text: string) => {
    if (tty && !screenGone) io.stdout(`${text}\n`);
  };

  let stopping: Promise<number> | null = null;
  const stop = (signal: string): void => {
    if (stopping !== null) {
      logger.warn({ signal }, 'second signal: exiting now');
      board?.stop();
      process.exit(130);
    }
    logger.info({ signal }, 'stopping: no new quotes, cancelling every order');
    stopping = (async () => {
      const clean = await bot.shutdown(parts.config.engine.shutdownTimeoutMs);
      board?.stop();
      await parts.close();
      if (clean) logger.info('stopped; no order of ours is left on the book');
      else
        logger.error(
          'stopped; some orders or transactions could not be confirmed within the deadline (named above): run dlt-mm orders, then dlt-mm cancel-all',
        );
      say(
        clean
          ? 'stopped; no order of ours is left on the book'
          : 'stopped; some orders or transactions could not be confirmed within the deadline (named above): run dlt-mm orders, then dlt-mm cancel-all',
      );
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

  try {
    if (tty) {
      process.stdout.on('error', onScreenError);
      process.stderr.on('error', onScreenError);
    }
    board?.start();
    process.stdout.on('resize', onResize);
    await bot.start();
    if (!tty) io.stdout(`trading ${bot.loops.size} pair(s); Ctrl-C stops and cancels every order\n`);
  } catch (e) {
    logger.error({ err: e }, 'start-up failed');
    board?.stop();
    await bot.shutdown(parts.config.engine.shutdownTimeoutMs).catch(() => false);
    await parts.close();
    log.file?.close();
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
  process.stdout.off('resize', onResize);
  process.off('SIGTERM', onTerm);
  process.off('SIGINT', onInt);
  process.off('SIGHUP', onHup);
  log.file?.close();
  return code;
}
