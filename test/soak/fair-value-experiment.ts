/**
 * `npm run experiment:fair-value [-- --minutes N] [--seed S] [--informed 0.5]`: does quoting around the fair value
 * beat quoting around the book? Two sessions, one after the other, each on a fresh sandbox with the same seed
 * (the same hidden value path and the same takers' draws) on the accelerated clock, with informed takers: the
 * real `dlt-mm run` quoting `strategies/fair-ladder.yaml` (around the fair value), then the same file with
 * `referencePrice: [mid, last, static]` and no fairValue block (around the mid of the book): nothing else differs,
 * and both run under the same risk limits, which cap each pair's position (`maxNotional`). Each session ends with
 * SIGTERM (every quote cancelled) and is judged from the bot's own state file and the sandbox's truth: PnL marked
 * to the true value at the end (the quote received and paid, commissions included, plus the position at the
 * true value), split into the edge of each fill against the true value at its moment, the commissions, and the
 * inventory result (the position's revaluation as the true value moved after the fills); and the share of our
 * fills an informed taker took.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { parseDocument } from 'yaml';
import { Decimal } from '../../src/core/decimal.ts';
import { Attribution } from '../../src/core/evaluation/attribution.ts';
import { quoteFromNative, type PairScales } from '../../src/core/units.ts';
import { freePort } from '../../src/sandbox/net.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/venue/start.ts';
import { openStoreReadOnly } from '../../src/store/store.ts';
import { writeBotConfig } from '../support/e2e/bot-config.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { until } from '../support/e2e/poll.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
type Reference = 'fair' | 'mid';
/** Both sessions' risk limits: a pair's position is held within 1000 quote units at the mark. */
const RISK = { maxOrderValue: '2000', maxNotional: '1000', staleMarketDataMs: 15_000 };

/** `strategies/fair-ladder.yaml`, or the same ladder around the mid of the book, written into `dir`. */
export function strategyFile(dir: string, reference: Reference): string {
  const fair = readFileSync(join(ROOT, 'strategies/fair-ladder.yaml'), 'utf8');
  const doc = parseDocument(fair);
  if (reference === 'mid') {
    doc.set('referencePrice', doc.createNode(['mid', 'last', 'static'], { flow: true }));
    doc.delete('fairValue');
    doc.set('description', 'fair-ladder.yaml around the mid of the book instead of the fair value');
  }
  const path = join(dir, `${reference}-ladder.yaml`);
  writeFileSync(path, doc.toString());
  return path;
}

export interface PairOutcome {
  readonly symbol: string;
  readonly fills: number;
  readonly informedFills: number;
  readonly uninformedFills: number;
  /** Base position at the end. */
  readonly position: Decimal;
  readonly fees: Decimal;
  readonly trueValueEnd: Decimal;
  /** Quote received less quote paid (commissions included) plus the position at the true value at the end. */
  readonly pnl: Decimal;
  /** Spread capture against the true value: each fill against the true value at its moment. */
  readonly edge: Decimal;
  /** What the position won or lost as the true value moved after each fill: pnl = edge + inventory - fees. */
  readonly inventory: Decimal;
}

export interface SessionOutcome {
  readonly reference: Reference;
  readonly minutes: number;
  readonly pairs: readonly PairOutcome[];
}

interface FlowPairStats {
  readonly takers: Record<'informed' | 'uninformed', { readonly fillsByWallet: Record<string, { fills: number }> }>;
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const human = (v: bigint, scale: bigint) => new Decimal(v.toString()).div(new Decimal(scale.toString()));

/** What the bot's state file says it traded, judged against the sandbox's truth. */
async function judge(sandbox: Sandbox, storePath: string, reference: Reference, minutes: number) {
  const control = sandbox.manifest.venue.controlUrl;
  const ours = new Set(sandbox.manifest.wallets.filter((w) => w.marketMaker).map((w) => w.address.toLowerCase()));
  const values = await json<{ pairs: Record<string, { value: string }> }>(`${control}/values`);
  const flow = await json<{ pairs: Record<string, FlowPairStats> }>(`${control}/flow`);
  const store = openStoreReadOnly(storePath);
  const pairs: PairOutcome[] = [];
  try {
    for (const p of sandbox.state.pairs) {
      const scales: PairScales = p.scales;
      const fills = store.orders.fills({ pairId: p.id });
      const end = new Decimal(values.pairs[p.id]?.value ?? Number.NaN);
      // The bot's own attribution, marked to the sandbox's truth instead of its fair value.
      const attribution = new Attribution();
      for (const f of fills) {
        const at = await json<{ pairs: Record<string, { value: string }> }>(`${control}/values?at=${f.atMs}`);
        attribution.addFill({
          baseDelta: human(f.baseDelta, scales.baseNative),
          quoteDelta: human(f.quoteDelta, scales.quoteNative),
          commission: quoteFromNative(f.fee, scales),
          valueAtFill: new Decimal(at.pairs[p.id]?.value ?? end),
        });
      }
      const parts = attribution.at(end);
      const count = (kind: 'informed' | 'uninformed') =>
        Object.entries(flow.pairs[p.id]?.takers[kind].fillsByWallet ?? {})
          .filter(([w]) => ours.has(w.toLowerCase()))
          .reduce((n, [, s]) => n + s.fills, 0);
      pairs.push({
        symbol: p.symbol,
        fills: fills.length,
        informedFills: count('informed'),
        uninformedFills: count('uninformed'),
        position: parts.position,
        fees: parts.commissions,
        trueValueEnd: end,
        pnl: parts.total,
        edge: parts.spreadCapture,
        inventory: parts.inventory,
      });
    }
  } finally {
    store.close();
  }
  return { reference, minutes, pairs };
}

export async function runSession(
  reference: Reference,
  o: { minutes: number; seed: number; informed: number; say: (line: string) => void },
): Promise<SessionOutcome> {
  const dir = mkdtempSync(join(tmpdir(), `dltmm-fair-${reference}-`));
  const sandbox = await startSandbox({
    ports: { api: 0, evm: 0, wasm: 0 },
    clock: { mode: 'accelerated', speed: 60 },
    flow: { enabled: true, seed: o.seed, informedShare: o.informed },
    manifest: join(dir, 'manifest.json'),
    logger: pino({ level: 'warn' }, pino.destination({ dest: join(dir, 'sandbox.log'), sync: false })),
  });
  let bot: BotProcess | null = null;
  try {
    const port = await freePort();
    const storePath = join(dir, 'bot.sqlite');
    const config = writeBotConfig({
      dir,
      name: 'bot',
      manifest: sandbox.manifestPath as string,
      metricsPort: port,
      store: storePath,
      strategy: strategyFile(dir, reference),
      risk: RISK,
    });
    bot = new BotProcess(config, port, join(dir, 'bot.log'));
    const b = bot;
    await until('bot ready', 120_000, async () => b.running && (await b.readiness()).ready);
    o.say(`${reference}: trading for ${o.minutes} min (${dir})`);
    await new Promise((r) => setTimeout(r, o.minutes * 60_000));
    b.child.kill('SIGTERM');
    const exit = await b.exited;
    o.say(`${reference}: stopped (exit ${exit.code}); judging`);
    await sandbox.sync();
    return await judge(sandbox, storePath, reference, o.minutes);
  } finally {
    if (bot?.running === true) bot.kill();
    await sandbox.stop();
  }
}

const fmt = (d: Decimal, places = 2) => d.toDecimalPlaces(places).toFixed(places);

export function table(sessions: readonly SessionOutcome[]): string {
  const lines = [
    '| quoting around | pair | fills | by informed / uninformed takers | position | PnL at the true value | = edge at fill | - commissions | + inventory result |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of sessions) {
    for (const p of s.pairs)
      lines.push(
        `| ${s.reference} | ${p.symbol} | ${p.fills} | ${p.informedFills} / ${p.uninformedFills} | ${fmt(p.position, 4)} | ${fmt(p.pnl)} | ${fmt(p.edge)} | ${fmt(p.fees)} | ${fmt(p.inventory)} |`,
      );
    const sum = (f: (p: PairOutcome) => Decimal) => s.pairs.reduce((a, p) => a.add(f(p)), new Decimal(0));
    const fills = s.pairs.reduce((n, p) => n + p.fills, 0);
    const informed = s.pairs.reduce((n, p) => n + p.informedFills, 0);
    const taken = informed + s.pairs.reduce((n, p) => n + p.uninformedFills, 0);
    const share = taken === 0 ? '-' : `${((100 * informed) / taken).toFixed(1)} %`;
    lines.push(
      `| **${s.reference}** | **all** | **${fills}** | **${share} informed** | | **${fmt(sum((p) => p.pnl))}** | **${fmt(sum((p) => p.edge))}** | **${fmt(sum((p) => p.fees))}** | **${fmt(sum((p) => p.inventory))}** |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '20' },
      seed: { type: 'string', default: '7' },
      informed: { type: 'string', default: '0.5' },
    },
    strict: true,
  });
  const o = {
    minutes: Number(values.minutes),
    seed: Number(values.seed),
    informed: Number(values.informed),
    say: (line: string) => process.stderr.write(`[experiment ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  };
  const sessions: SessionOutcome[] = [];
  for (const reference of ['fair', 'mid'] as const) sessions.push(await runSession(reference, o));
  console.log(
    `Quoting around the fair value against quoting around the mid: ${o.minutes} min each, seed ${o.seed}, informed share ${o.informed}, accelerated clock (60x)\n`,
  );
  console.log(table(sessions));
}
