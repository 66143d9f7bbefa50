/**
 * The soak's one table and its verdict, from the run's result. Pure: the same result gives the same text.
 */
import { classify } from './classify.ts';
import type { OrderCounts, Presence, Responses, SecondCancel } from './analysis.ts';
import {
  CHAIN_NAME,
  CHAINS,
  type Chain,
  type ChainTx,
  type Classification,
  type GaugeCheck,
  type Incident,
  type StateSample,
} from './model.ts';

export interface SoakResult {
  readonly minutes: number;
  readonly pairs: readonly { readonly chain: Chain; readonly pairId: string; readonly symbol: string }[];
  readonly counts: Readonly<Record<Chain, OrderCounts>>;
  readonly txs: readonly ChainTx[];
  readonly incidents: readonly Incident[];
  readonly unusedApprovals: readonly ChainTx[];
  readonly secondCancels: readonly SecondCancel[];
  readonly presence: readonly Presence[];
  readonly responses: readonly Responses[];
  /** Resident set size of the bot's process, bytes: at ready, at the SIGTERM, and the largest seen. */
  readonly rss: { readonly first: number; readonly last: number; readonly max: number } | null;
  /** The bot's own event-loop delay p99 of each scrape interval, seconds. */
  readonly lagP99s: readonly number[];
  readonly checks: readonly GaugeCheck[];
  readonly samples: readonly StateSample[];
  readonly shutdown: {
    readonly code: number | null;
    readonly signal: string | null;
    readonly seconds: number;
    readonly leftResting: number;
  };
  /** The bot's warning and error lines, by level and message. */
  readonly botProblems: readonly (readonly [string, number])[];
}

export interface Row {
  readonly area: string;
  readonly chain: string;
  readonly what: string;
  readonly value: string;
  readonly class: string;
  readonly evidence: string;
}

export interface Verdict {
  readonly ok: boolean;
  readonly failures: readonly string[];
}

/** Warning and error messages of the bot shown in the table (the most frequent); result.json has them all. */
const LOG_ROWS = 8;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
const short = (h: string | null) => (h === null ? '' : h.startsWith('0x') ? `${h.slice(0, 10)}` : h.slice(0, 8));

function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = xs.toSorted((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
}

export type ClassifiedIncident = Incident & Classification;

export function classified(incidents: readonly Incident[]): ClassifiedIncident[] {
  return incidents.map((i) => ({ ...i, ...classify(i) }));
}

function evidenceOf(list: readonly Incident[]): string {
  const items = list.slice(0, 3).map((i) => {
    const at = i.height === null ? '' : `@${i.height}`;
    const order = i.orderId === null ? '' : `order ${i.orderId}`;
    return [order, short(i.txHash), at].filter((s) => s !== '').join(' ');
  });
  return `${items.join('; ')}${list.length > 3 ? `; +${list.length - 3}` : ''}`;
}

export function verdict(r: SoakResult): Verdict {
  const failures: string[] = [];
  const self = classified(r.incidents).filter((i) => i.class === 'self-caused').length;
  if (self > 0) failures.push(`${self} self-caused rejection(s)`);
  if (r.secondCancels.length > 0) failures.push(`${r.secondCancels.length} second cancel(s)`);
  const differ = r.checks.filter((c) => !c.equal).length;
  if (differ > 0) failures.push(`${differ} gauge reading(s) differ from the truth`);
  const unreached = r.samples.filter((s) => !s.reached).length;
  if (unreached > 0) failures.push(`${unreached} state sample(s) without a consistent reading`);
  if (r.shutdown.code !== 0) failures.push(`the bot exited with ${r.shutdown.code ?? r.shutdown.signal}`);
  if (r.shutdown.leftResting > 0)
    failures.push(`${r.shutdown.leftResting} order(s) left on the books after the shutdown`);
  return { ok: failures.length === 0, failures };
}

export function rows(r: SoakResult): Row[] {
  const out: Row[] = [];
  const add = (area: string, chain: Chain | null, what: string, value: string | number, cls = '', evidence = '') =>
    out.push({
      area,
      chain: chain === null ? '' : CHAIN_NAME[chain],
      what,
      value: String(value),
      class: cls,
      evidence,
    });

  for (const chain of CHAINS) {
    const c = r.counts[chain];
    add('orders', chain, 'placed (OrderReceived)', c.placed);
    add('orders', chain, 'rested on the book', c.rested);
    add('orders', chain, 'cancelled by us', c.cancelledByUs);
    add('orders', chain, 'filled in full / in part', `${c.filledInFull} / ${c.filledInPart}`);
    add(
      'orders',
      chain,
      'rejected at matching / cancelled by the contract',
      `${c.rejectedAtMatching} / ${c.cancelledByContract}`,
    );
    // Reported, not judged: a crossing may meet an order that arrived in the same block or ledger before ours.
    add('orders', chain, 'traded on arrival as taker (our quote crossed the book)', c.tradedOnArrival);
    const txs = r.txs.filter((t) => t.chain === chain);
    const n = (call: string) => txs.filter((t) => t.call === call).length;
    add(
      'transactions',
      chain,
      'included: place / cancel / approve / other',
      `${n('place')} / ${n('cancel')} / ${n('approve')} / ${n('other')}`,
    );
  }

  const incidents = classified(r.incidents);
  const groups = new Map<string, ClassifiedIncident[]>();
  for (const i of incidents) {
    const k = [i.class, i.chain, i.stage, i.call, i.name, i.rule].join('|');
    groups.set(k, [...(groups.get(k) ?? []), i]);
  }
  const ordered = [...groups.values()].toSorted((a, b) =>
    a[0]?.class === b[0]?.class ? b.length - a.length : a[0]?.class === 'self-caused' ? -1 : 1,
  );
  for (const g of ordered) {
    const i = g[0] as ClassifiedIncident;
    add(
      'rejections',
      i.chain,
      `${i.call} ${i.stage === 'inclusion' ? 'reverted' : i.stage === 'simulation' ? 'refused at simulation' : i.stage === 'submission' ? 'refused at submission' : i.stage === 'expiry' ? 'dropped' : 'at matching'}: ${i.name} — ${i.rule}`,
      g.length,
      i.class,
      evidenceOf(g),
    );
  }
  if (incidents.length === 0) add('rejections', null, 'rejections, reverts and refusals', 0, '', 'none');

  for (const chain of CHAINS) {
    const approvals = r.txs.filter((t) => t.chain === chain && t.call === 'approve').length;
    const unused = r.unusedApprovals.filter((t) => t.chain === chain);
    add(
      'wasted',
      chain,
      'approvals nothing used before the next approval or the end',
      `${unused.length} of ${approvals}`,
      unused.length > 0 ? 'wasted' : '',
      unused
        .slice(0, 3)
        .map((t) => `${short(t.hash)} @${t.height}`)
        .join('; '),
    );
    const second = r.secondCancels.filter((s) => s.chain === chain);
    const sentAgain = second.filter((s) => s.reachedChain);
    add(
      'wasted',
      chain,
      'second cancels of one order: reached the chain / refused before',
      `${sentAgain.length} / ${second.length - sentAgain.length}`,
      second.length > 0 ? 'self-caused' : '',
      second
        .slice(0, 3)
        .map((s) => `order ${s.orderId} ${short(s.txHash)} after ${short(s.first)}`)
        .join('; '),
    );
    const failed = r.txs.filter((t) => t.chain === chain && !t.success);
    add(
      'wasted',
      chain,
      'transactions included and failed (fees for nothing)',
      failed.length,
      failed.length > 0 ? 'wasted' : '',
    );
  }

  for (const p of r.presence) {
    const symbol = r.pairs.find((x) => x.pairId === p.pairId)?.symbol ?? p.pairId;
    add('presence', p.chain, `${symbol} ${p.side}: time with an order of ours resting`, pct(p.share));
  }
  for (const x of r.responses) {
    const worst =
      x.late.length === 0
        ? ''
        : `late ones: up to ${Math.max(...x.late)} ${x.chain === 'evm' ? 'block(s)' : 'ledger(s)'} after the next`;
    add(
      'latency',
      x.chain,
      `book changes whose new quotes were all in the next ${x.chain === 'evm' ? 'block' : 'ledger'}`,
      x.answered === 0 ? 'n/a' : `${x.inNext} of ${x.answered} (${pct(x.inNext / x.answered)})`,
      '',
      worst,
    );
  }

  if (r.rss !== null) {
    add(
      'bot',
      null,
      'RSS at ready / at SIGTERM / largest',
      `${mib(r.rss.first)} / ${mib(r.rss.last)} / ${mib(r.rss.max)}`,
    );
    add(
      'bot',
      null,
      'RSS last / first',
      (r.rss.last / r.rss.first).toFixed(2),
      r.rss.last / r.rss.first < 1.2 ? '' : 'above 1.2',
    );
  }
  add(
    'bot',
    null,
    'event-loop delay p99 per scrape interval: median / largest',
    r.lagP99s.length === 0
      ? 'not exported'
      : `${(quantile(r.lagP99s, 0.5) * 1000).toFixed(1)} ms / ${(Math.max(...r.lagP99s) * 1000).toFixed(1)} ms`,
  );

  for (const s of r.samples) {
    const mine = r.checks.filter((c) => c.sample === s.sample);
    const venue = CHAINS.map((c) =>
      s.venueList[c] === undefined
        ? ''
        : `${CHAIN_NAME[c]} venue list ${s.venueList[c]?.venue}, book ${s.venueList[c]?.chain}`,
    )
      .filter((x) => x !== '')
      .join('; ');
    add(
      `gauges #${s.sample}`,
      null,
      s.reached ? `state gauges equal to the truth (${s.note})` : `no consistent reading: ${s.note}`,
      s.reached ? `${mine.filter((c) => c.equal).length} of ${mine.length}` : 'n/a',
      s.reached && mine.every((c) => c.equal) ? '' : 'differs',
      venue,
    );
    for (const c of mine.filter((x) => !x.equal))
      add(`gauges #${s.sample}`, c.chain, `${c.gauge} ${c.subject}`, `gauge ${c.value}, truth ${c.truth}`, 'differs');
  }

  const problems = r.botProblems.toSorted((a, b) => b[1] - a[1]);
  for (const [what, n] of problems.slice(0, LOG_ROWS)) add('bot log', null, what, n);
  if (problems.length > LOG_ROWS)
    add(
      'bot log',
      null,
      `${problems.length - LOG_ROWS} other warning or error messages`,
      problems.slice(LOG_ROWS).reduce((n, [, c]) => n + c, 0),
    );
  add(
    'shutdown',
    null,
    'SIGTERM to exit: code, seconds',
    `${r.shutdown.code ?? r.shutdown.signal}, ${r.shutdown.seconds.toFixed(1)} s`,
    r.shutdown.code === 0 ? '' : 'failed',
  );
  add(
    'shutdown',
    null,
    'orders of ours left on the books after the exit',
    r.shutdown.leftResting,
    r.shutdown.leftResting === 0 ? '' : 'failed',
  );
  const v = verdict(r);
  add('verdict', null, v.ok ? 'PASS' : 'FAIL', v.ok ? '0 failures' : v.failures.join('; '));
  return out;
}

const HEADERS = ['area', 'chain', 'what', 'value', 'class', 'evidence'] as const;

/** The rows as one Markdown table. */
export function render(table: readonly Row[]): string {
  const cells = table.map((r) => HEADERS.map((h) => r[h].replaceAll('|', '\\|')));
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (cols: readonly string[]) => `| ${cols.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(HEADERS), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
