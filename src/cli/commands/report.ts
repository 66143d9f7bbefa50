/**
 * `dlt-mm report --config <file> [--day YYYY-MM-DD] [--out <dir>]`: one trading day of the bot as a
 * self-contained HTML page (charts rendered to SVG now, with Vega-Lite; the page opens from disk and fetches
 * nothing), the same data as JSON, and CSV tables beside it. Reads the state file only (read-only, safe while
 * the bot runs); the day defaults to today on the venue's clock (Europe/Berlin).
 */
import { Decimal } from '../../core/decimal.ts';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CALENDAR, toVenueLocal } from '../../core/calendar.ts';
import { DltError } from '../../core/errors.ts';
import { isDate } from '../../engine/obligations/day-frame.ts';
import { openStoreReadOnly } from '../../store/store.ts';
import { buildDayReport, type BacktestMark, type DayReport } from '../report/data.ts';
import type { ChainFeeRate } from '../report/evaluation.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import type { Store } from '../../store/store.ts';
import { marketContext, readVenueTrades, type VenueTradesRead } from '../report/market-context.ts';
import { reportHtml } from '../report/page.ts';
import { VenueRestClient } from '../../venue/rest-client.ts';
import { RestTransport } from '../../venue/rest-transport.ts';
import { readManifest } from '../bootstrap/manifest.ts';
import { reportCsv } from '../report/report-csv.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { usageArgs } from '../args.ts';

export const REPORT_USAGE = `  dlt-mm report --config <file> [--day YYYY-MM-DD] [--out <dir>]
                                      a trading day as an HTML page with charts, plus JSON and CSV (default: today, report.out)`;

export interface ReportFiles {
  readonly html: string;
  readonly json: string;
  readonly csv: readonly string[];
  readonly charts: readonly string[];
}

/** Writes the report of `day` and returns the files' paths. `nowMs`: when the report is made. */
export async function writeReport(
  configPath: string,
  io: CliIo,
  options: { day?: string; out?: string; nowMs: number },
): Promise<ReportFiles> {
  const {
    config,
    configPath: fullPath,
    statePath,
  } = checkedSetup(configPath, io, { strategies: false, connection: false });
  const day = options.day ?? toVenueLocal(options.nowMs).date;
  if (!isDate(day))
    throw new DltError('E_USAGE', `--day: ${JSON.stringify(day)} is not a date YYYY-MM-DD\n${REPORT_USAGE}`);
  if (!existsSync(statePath))
    throw new DltError('E_USAGE', `no state file at ${statePath}: the bot has not run with this configuration`);
  const out =
    options.out !== undefined
      ? resolve(io.cwd, options.out)
      : config.sandbox?.embedded === true
        ? resolve(io.cwd, '.sandbox', 'reports')
        : resolve(dirname(fullPath), config.report.out);
  const store = openStoreReadOnly(statePath);
  try {
    const restUrl = venueRestUrl(config, dirname(fullPath), io);
    const venueTrades =
      restUrl === undefined
        ? new Map<string, VenueTradesRead>()
        : await readVenueTrades(
            new VenueRestClient(
              new RestTransport({ baseUrl: restUrl, retry: { baseMs: 200, capMs: 2_000, retries: 2 } }),
            ),
            store.obligations.pairs().map((p) => p.pairId),
          );
    return await writeDayReport(store, io, {
      day,
      venueTrades,
      nowMs: options.nowMs,
      out,
      calendar: {
        enabled: config.calendar.enabled && config.sandbox?.embedded !== true,
        config: { ...DEFAULT_CALENDAR, holidays: config.calendar.holidays },
      },
      chainFeeRate: {
        evm: new Decimal(config.evaluation.chainFeeRate.evm),
        wasm: new Decimal(config.evaluation.chainFeeRate.wasm),
      },
    });
  } finally {
    store.close();
  }
}

/**
 * The report of `day` from a state store into `out` (HTML with its charts, JSON, CSV): the bot's own, or a
 * backtest's (`backtest` says what was replayed, and the page says it is one).
 */
export async function writeDayReport(
  store: Store,
  io: CliIo,
  o: {
    readonly day: string;
    readonly nowMs: number;
    readonly out: string;
    readonly calendar: CalendarUse;
    readonly chainFeeRate: ChainFeeRate;
    readonly backtest?: BacktestMark;
    /** File names start with this (default `dlt-mm-<day>`). */
    readonly stem?: string;
    /** The venue's public trades read for the market context (none for a backtest, which has no such part). */
    readonly venueTrades?: ReadonlyMap<string, VenueTradesRead>;
  },
): Promise<ReportFiles> {
  const built = buildDayReport(store, o.day, o.nowMs, o.calendar, o.chainFeeRate);
  const trades = o.venueTrades;
  const report: DayReport = {
    ...built,
    ...(trades === undefined
      ? {}
      : {
          pairs: built.pairs.map((p) => ({
            ...p,
            market: marketContext(p.fills, trades.get(p.pairId), built.from, built.to),
          })),
        }),
    ...(o.backtest === undefined ? {} : { backtest: o.backtest }),
  };
  // Vega and Vega-Lite load only here: every other command (a bot restart above all) starts without them.
  const { renderCharts, reportCharts } = await import('../report/charts.ts');
  const charts = await renderCharts(reportCharts(report));
  const stem = join(o.out, o.stem ?? `dlt-mm-${o.day}`);
  const csv = reportCsv(report);
  const csvFiles = Object.entries(csv).map(([name, text]) => ({ path: `${stem}-${name}.csv`, text }));
  const json = `${stem}.json`;
  io.writeFile(
    json,
    `${JSON.stringify({ ...report, charts: charts.map((c) => ({ id: c.id, title: c.title, spec: c.spec })) }, null, 2)}\n`,
  );
  for (const f of csvFiles) io.writeFile(f.path, f.text);
  const html = `${stem}.html`;
  io.writeFile(html, reportHtml(report, charts, { json: basename(json), csv: csvFiles.map((f) => basename(f.path)) }));
  return { html, json, csv: csvFiles.map((f) => f.path), charts: charts.map((c) => c.id) };
}

/**
 * Where the venue's public trades are read for the market context: `venue.restUrl`, else the REST URL of the
 * sandbox manifest if it can be read now; undefined leaves the venue's side out.
 */
function venueRestUrl(config: ReturnType<typeof checkedSetup>['config'], dir: string, io: CliIo): string | undefined {
  if (config.venue !== undefined) return config.venue.restUrl;
  const manifest = config.sandbox?.manifest;
  if (manifest === undefined) return undefined;
  try {
    return readManifest(io.readFile(resolve(dir, manifest)), 'sandbox.manifest').manifest?.venue.restUrl;
  } catch {
    return undefined;
  }
}

export async function reportCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = usageArgs(
    () =>
      parseArgs({
        args,
        options: { config: { type: 'string' }, day: { type: 'string' }, out: { type: 'string' } },
        strict: true,
        allowPositionals: false,
      }),
    REPORT_USAGE,
  );
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${REPORT_USAGE}`);
  const files = await writeReport(values.config, io, {
    ...(values.day === undefined ? {} : { day: values.day }),
    ...(values.out === undefined ? {} : { out: values.out }),
    nowMs: Date.now(),
  });
  io.stdout(
    `report ${files.html}\n  data ${files.json}\n  tables ${files.csv.join(' ')}\n  ${files.charts.length} charts\n`,
  );
  return EXIT_OK;
}
