/**
 * The report's charts: Vega-Lite specifications rendered to static SVG by Vega in Node when the report is
 * made (no browser, no script in the page). Times are shown on the venue's clock (Europe/Berlin).
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { DayReport, PairDay } from './data.ts';
import { venueWallMs } from '../../core/calendar.ts';
import { base, STATE_COLOURS, thin, timeAxis } from './chart-kit.ts';
import { fairValueChart } from './fair-chart.ts';
import { markoutChart } from './markout-chart.ts';
import { rejectionsChart, transactionsChart } from './day-charts.ts';

export interface Chart {
  /** Stable id: `<kind>-<pair id>` or `<kind>`. */
  readonly id: string;
  readonly title: string;
  readonly spec: TopLevelSpec;
}

export interface RenderedChart extends Chart {
  readonly svg: string;
}

/** The stretch the charts show: from the first observed moment of the day to its end (or now). */
export function chartDomain(report: DayReport): [number, number] {
  const starts = report.pairs.flatMap((p) => [
    ...p.segments.filter((s) => s.state !== 'unobserved').map((s) => s.from),
    ...p.samples.map((s) => s.atMs),
  ]);
  const from = starts.length === 0 ? report.from : Math.min(...starts);
  return [venueWallMs(from), venueWallMs(Math.max(report.to, from + 1_000))];
}

function pnlChart(p: PairDay, domain: [number, number]): Chart {
  const rows = thin(p.samples).flatMap((s) => {
    const t = venueWallMs(s.atMs);
    const realised = Number(s.realised);
    const unrealised = Number(s.unrealised);
    const fees = Number(s.fees);
    return [
      { t, series: 'realised', value: realised },
      { t, series: 'unrealised', value: unrealised },
      { t, series: 'fees paid', value: -fees },
      { t, series: 'total', value: realised + unrealised - fees },
    ];
  });
  return {
    id: `pnl-${p.pairId}`,
    title: `${p.symbol}: PnL (realised, unrealised at the mark, fees paid), quote units`,
    spec: {
      ...base(`${p.symbol}: PnL (realised, unrealised at the mark, fees paid), quote units`),
      data: { values: rows },
      mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
      encoding: {
        x: timeAxis(domain),
        y: { field: 'value', type: 'quantitative', title: 'quote units' },
        color: { field: 'series', type: 'nominal', title: null },
      },
    } as TopLevelSpec,
  };
}

function inventoryChart(p: PairDay, domain: [number, number]): Chart {
  const rows = thin(p.samples).map((s) => ({ t: venueWallMs(s.atMs), position: Number(s.position) }));
  return {
    id: `inventory-${p.pairId}`,
    title: `${p.symbol}: inventory (base position)`,
    spec: {
      ...base(`${p.symbol}: inventory (base position)`),
      data: { values: rows },
      mark: { type: 'area', interpolate: 'step-after', line: { color: '#1f5fa8' }, color: '#9ec3ea', opacity: 0.8 },
      encoding: { x: timeAxis(domain), y: { field: 'position', type: 'quantitative', title: 'base units' } },
    } as TopLevelSpec,
  };
}

function spreadChart(p: PairDay, domain: [number, number]): Chart {
  const rows = thin(p.samples).flatMap((s) => {
    const t = venueWallMs(s.atMs);
    return [
      ...(s.spreadBps === null ? [] : [{ t, series: 'our spread', value: s.spreadBps }]),
      ...(s.maxSpreadBps === null ? [] : [{ t, series: 'maximum', value: s.maxSpreadBps }]),
    ];
  });
  return {
    id: `spread-${p.pairId}`,
    title: `${p.symbol}: spread of our best bid and ask against the maximum, bp`,
    spec: {
      ...base(`${p.symbol}: spread of our best bid and ask against the maximum, bp`),
      data: { values: rows },
      mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
      encoding: {
        x: timeAxis(domain),
        y: { field: 'value', type: 'quantitative', title: 'bp of the midpoint' },
        color: {
          field: 'series',
          type: 'nominal',
          title: null,
          scale: { domain: ['our spread', 'maximum'], range: ['#1f77b4', '#d62728'] },
        },
        strokeDash: {
          field: 'series',
          type: 'nominal',
          legend: null,
          scale: {
            domain: ['our spread', 'maximum'],
            range: [
              [1, 0],
              [6, 3],
            ],
          },
        },
      },
    } as TopLevelSpec,
  };
}

function presenceChart(p: PairDay, domain: [number, number]): Chart {
  const target = p.compliance?.target ?? 0;
  const bands = p.segments
    .filter((s) => s.state !== 'unobserved')
    .map((s) => ({
      t: venueWallMs(s.from),
      t2: venueWallMs(s.to),
      status: s.state === 'continuous' ? (s.present ? 'present' : 'absent') : s.state,
    }));
  const ratio = thin(p.samples.filter((s) => s.presence !== null)).map((s) => ({
    t: venueWallMs(s.atMs),
    presence: s.presence,
  }));
  const statuses = Object.keys(STATE_COLOURS).filter((k) => k !== 'unobserved');
  const title = `${p.symbol}: presence within the terms over the day (target ${Math.round(target * 1000) / 10} %, dashed); halts, closed hours, exceptions and downtime shaded`;
  return {
    id: `presence-${p.pairId}`,
    title,
    spec: {
      ...base(title),
      layer: [
        {
          data: { values: bands },
          mark: { type: 'rect', opacity: 0.55 },
          encoding: {
            x: timeAxis(domain),
            x2: { field: 't2' },
            y: {
              datum: 0,
              type: 'quantitative',
              scale: { domain: [0, 1] },
              axis: { format: '%', title: 'presence so far' },
            },
            y2: { datum: 1 },
            color: {
              field: 'status',
              type: 'nominal',
              title: null,
              scale: { domain: statuses, range: statuses.map((s) => STATE_COLOURS[s as keyof typeof STATE_COLOURS]) },
            },
          },
        },
        {
          data: { values: ratio },
          mark: { type: 'line', color: '#111', strokeWidth: 1.5 },
          encoding: {
            x: timeAxis(domain, false),
            y: { field: 'presence', type: 'quantitative', scale: { domain: [0, 1] } },
          },
        },
        {
          data: { values: [{ target }] },
          mark: { type: 'rule', color: '#d62728', strokeDash: [4, 3] },
          encoding: { y: { field: 'target', type: 'quantitative' } },
        },
      ],
    } as TopLevelSpec,
  };
}

function fillsChart(p: PairDay, domain: [number, number]): Chart {
  const marks = thin(p.samples.filter((s) => s.mark !== null)).map((s) => ({
    t: venueWallMs(s.atMs),
    mark: Number(s.mark),
  }));
  const fills = p.fills.map((f) => ({
    t: venueWallMs(f.atMs),
    price: Number(f.price),
    quantity: Number(f.quantity),
    side: f.side,
    role: f.role,
  }));
  return {
    id: `fills-${p.pairId}`,
    title: `${p.symbol}: our fills (${p.fills.length}) against the mark`,
    spec: {
      ...base(`${p.symbol}: our fills (${p.fills.length}) against the mark`),
      layer: [
        {
          data: { values: marks },
          mark: { type: 'line', color: '#999', strokeWidth: 1 },
          encoding: {
            x: timeAxis(domain),
            y: { field: 'mark', type: 'quantitative', scale: { zero: false }, title: 'price' },
          },
        },
        {
          data: { values: fills },
          mark: { type: 'point', filled: true, opacity: 0.85 },
          encoding: {
            x: timeAxis(domain, false),
            y: { field: 'price', type: 'quantitative', scale: { zero: false } },
            color: {
              field: 'side',
              type: 'nominal',
              scale: { domain: ['buy', 'sell'], range: ['#2e9e4f', '#d62728'] },
              title: null,
            },
            size: { field: 'quantity', type: 'quantitative', title: 'base units' },
            shape: {
              field: 'role',
              type: 'nominal',
              scale: { domain: ['maker', 'taker'], range: ['circle', 'triangle-up'] },
              title: null,
            },
          },
        },
      ],
    } as TopLevelSpec,
  };
}

/** Every chart of the report, in page order. */
export function reportCharts(report: DayReport): Chart[] {
  const domain = chartDomain(report);
  const charts: Chart[] = [];
  for (const p of report.pairs) {
    if (p.compliance !== null) charts.push(presenceChart(p, domain));
    charts.push(pnlChart(p, domain), inventoryChart(p, domain), spreadChart(p, domain), fillsChart(p, domain));
    if (p.fairValues.length > 0) charts.push(fairValueChart(p, domain));
    if (p.evaluation.markouts.some((m) => m.bps !== null)) charts.push(markoutChart(p));
  }
  if (report.transactions.length > 0) charts.push(transactionsChart(report));
  if (report.rejections.length > 0) charts.push(rejectionsChart(report));
  return charts;
}

/** Vega-Lite to Vega to static SVG, headless. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export async function renderCharts(charts: readonly Chart[]): Promise<RenderedChart[]> {
  const out: RenderedChart[] = [];
  for (const c of charts) out.push({ ...c, svg: await renderSvg(c.spec) });
  return out;
}
