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
import { composeRun, type RunParts } from '../bootstrap/run.ts';
import { LogFile, teeLines } from '../run/log-output.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { usageArgs } from '../args.ts';
import { trackerObligations } from '../board/obligations.ts';

export const RUN_USAGE = `Usage:
  dlt-mm run [--config <file>] [--log-file <file>]
                                      run the bot (default config/local.yaml: the embedded sandbox); on a
                                      terminal it draws a live board and logs to a file (default: beside the store)`;

function shortPath(cwd: string, path: string): string {
  const below = relative(cwd, path);
  return below === '' || below.startsWith('..') || isAbsolute(below) ? path : below;
}

/** How often the board is redrawn. */
const BOARD_REDRAW_MS = 1_000;

const STOPPED_CLEAN = 'stopped; no order of ours is left on the book';
const STOPPED_UNCONFIRMED =
  'stopped; some orders or transactions could not be confirmed within the deadline (named above): run dlt-mm orders, then dlt-mm cancel-all';

function parseRunArgs(args: string[]) {
  return usageArgs(
    () =>
      parseArgs({
        args,
        options: { config: { type: 'string' }, 'log-file': { type: 'string' } },
        strict: true,
        allowPositionals: false,
      }),
    RUN_USAGE,
  ).values;
}

/**
 * Where the log goes besides standard output: a file (the chosen one, else the default path composeRun gives)
 * on a terminal or when --log-file is given; `log.file` is that file once opened.
 */
function logOutputOf(logFile: string | undefined, io: CliIo, tty: boolean, warnings: RecentWarnings) {
  const chosenLog = logFile === undefined ? undefined : resolve(io.cwd, logFile);
  const log: { file: LogFile | null } = { file: null };
  const logTo =
    tty || chosenLog !== undefined
      ? (defaultPath: string) => {
          const file = new LogFile(chosenLog ?? defaultPath);
          log.file = file;
          return teeLines(tty ? [file, warnings] : [file, { write: (line) => io.stdout(line) }]);
        }
      : undefined;
  return { log, logTo };
}

/** Where to find what the run serves: the embedded sandbox, the telemetry endpoints, the log. */
function announce(parts: RunParts, io: CliIo, logPath: string | null, tty: boolean): void {
  const { sandbox, telemetry } = parts;
  if (sandbox !== null) {
    const manifest = sandbox.manifest;
    io.stdout(
      `embedded sandbox ready: REST ${manifest.venue.restUrl}  WebSocket ${manifest.venue.wsUrl}  control ${manifest.venue.controlUrl}\n` +
        `  pairs: ${manifest.pairs.map((pair) => `${pair.symbol} (${pair.chain})`).join(', ')}\n`,
    );
  }
  io.stdout(`metrics ${telemetry.url}/metrics  health ${telemetry.url}/healthz  ready ${telemetry.url}/readyz\n`);
  if (logPath !== null) io.stdout(`log ${logPath}\n`);
  if (tty) io.stdout('\n');
}

/** The live board on standard output, redrawn every BOARD_REDRAW_MS. */
function boardOf(parts: RunParts, warnings: RecentWarnings, logPath: string | null): LiveBoard {
  const { bot, logger } = parts;
  return new LiveBoard({
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
          const evaluation = bot.evaluations.get(pairId);
          const horizonMs = parts.config.evaluation.boardHorizonMs;
          return evaluation === undefined ? null : { horizonMs, bps: evaluation.markouts(horizonMs)?.all.bps ?? null };
        },
      }),
    every: (ms, fn) => {
      const interval = setInterval(fn, ms);
      return () => clearInterval(interval);
    },
    intervalMs: BOARD_REDRAW_MS,
    color: process.stdout.hasColors(),
    onError: (e) => logger.error({ err: e }, 'the terminal board cannot be drawn'),
  });
}

/**
 * The terminal while the bot runs. A terminal closed under the bot (SIGHUP only reloads the strategies) fails
 * every write to it, on standard output and on standard error (where the cursor is hidden): the board stops
 * and the bot runs on, logging to its file, until SIGTERM. Without the error listeners the first failed write
 * would end the process with every order left on the book.
 */
function terminalOf(tty: boolean, board: LiveBoard | null, parts: RunParts, io: CliIo) {
  let screenGone = false;
  return {
    onError: (e: unknown) => {
      if (screenGone) return;
      screenGone = true;
      board?.detach();
      parts.logger.warn({ err: e }, 'the terminal is gone: the board stops drawing; the bot runs on until SIGTERM');
    },
    say: (text: string) => {
      if (tty && !screenGone) io.stdout(`${text}\n`);
    },
  };
}

/**
 * The first SIGTERM or SIGINT stops quoting, cancels every order and closes everything; a second exits at
 * once. SIGHUP reloads the strategies. `stopped` resolves with the exit code once a stop has completed.
 */
function stopOnSignals(parts: RunParts, board: LiveBoard | null, say: (text: string) => void) {
  const { bot, logger } = parts;
  let stopping: Promise<number> | null = null;
  const shutdown = async (): Promise<number> => {
    const clean = await bot.shutdown(parts.config.engine.shutdownTimeoutMs);
    board?.stop();
    await parts.close();
    if (clean) logger.info(STOPPED_CLEAN);
    else logger.error(STOPPED_UNCONFIRMED);
    say(clean ? STOPPED_CLEAN : STOPPED_UNCONFIRMED);
    // The shutdown itself completed: exit 0 either way; the log says what is left to check.
    return EXIT_OK;
  };
  const stop = (signal: string): void => {
    if (stopping !== null) {
      logger.warn({ signal }, 'second signal: exiting now');
      board?.stop();
      parts.store.durable(); // what this turn changed, on file before the process goes
      process.exit(130);
    }
    logger.info({ signal }, 'stopping: no new quotes, cancelling every order');
    stopping = shutdown();
  };
  const onTerm = () => stop('SIGTERM');
  const onInt = () => stop('SIGINT');
  const onHup = () => bot.reload();
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  process.on('SIGHUP', onHup);
  return {
    stopped: () =>
      new Promise<number>((done) => {
        const wait = setInterval(() => {
          if (stopping !== null) {
            clearInterval(wait);
            void stopping.then(done);
          }
        }, 50);
      }),
    remove: () => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      process.off('SIGHUP', onHup);
    },
  };
}

export async function runCommand(args: string[], io: CliIo): Promise<number> {
  const values = parseRunArgs(args);
  const tty = process.stdout.isTTY === true;
  const warnings = new RecentWarnings();
  const { log, logTo } = logOutputOf(values['log-file'], io, tty, warnings);
  const parts = await composeRun({
    configPath: values.config ?? 'config/local.yaml',
    io,
    tty,
    ...(logTo === undefined ? {} : { logTo }),
  });
  const { bot, logger } = parts;
  // Shown relative to the working directory when it lies below it.
  const logPath = log.file === null ? null : shortPath(io.cwd, log.file.path);
  announce(parts, io, logPath, tty);
  // On a terminal the board owns the screen from here on: nothing else is written to it until it stops.
  const board = tty ? boardOf(parts, warnings, logPath) : null;
  const onResize = () => board?.draw();
  const terminal = terminalOf(tty, board, parts, io);
  const signals = stopOnSignals(parts, board, terminal.say);
  try {
    if (tty) {
      process.stdout.on('error', terminal.onError);
      process.stderr.on('error', terminal.onError);
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
  const code = await signals.stopped();
  process.stdout.off('resize', onResize);
  signals.remove();
  log.file?.close();
  return code;
}
