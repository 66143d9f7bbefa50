/**
 * A pair's fair-value sources from its strategy's `fairValue` block and the pair's facts (its feed and oracle,
 * from `pairs[].fairValue` or the sandbox manifest). A source the pair cannot have (a feed without a URL, an
 * oracle or a bond yield feed the pair does not have, no ISIN) is left out for that pair with the reason, so
 * that one strategy serves funds and bonds alike; a secret that cannot be read is a problem.
 */
import type { Clock } from '../../core/clock.ts';
import type { FairValueConfig, FeedConfig, PairFairValue } from '../../core/config/fair-value-config.ts';
import type { ChainKind } from '../../core/pair.ts';
import { BondSource } from './bond-source.ts';
import { InstrumentRecord, navSource, type InstrumentApi } from './instrument-sources.ts';
import { JsonFeed } from './json-feed.ts';
import { PolledSource, type FairValueSource, type TimedValue } from './sources.ts';

/** The pair as its fair value needs it. */
export interface FairValuePair {
  readonly pairId: string;
  /** The market symbol (`{symbol}` in a feed URL). */
  readonly symbol: string;
  /** The base token's symbol (`{base}`). */
  readonly baseSymbol: string;
  /** The base instrument's ISIN (`{isin}`; the instrument record is found by it). */
  readonly isin: string | null;
  readonly chain: ChainKind;
  /** The base token's contract: a SEP-40 oracle's asset unless the pair's facts name another. */
  readonly baseToken: string;
  readonly facts: PairFairValue | undefined;
}

/** Reads an on-chain oracle's latest answer as a price (quote per base) with its time. */
export type OracleRead = (chain: ChainKind, address: string, asset: string) => Promise<TimedValue>;

export interface FairValueServices {
  readonly instruments: InstrumentApi;
  readonly oracle: OracleRead;
  /** Header values with their secrets read (`where` names the configuration key for errors). */
  readonly headers: (headers: FeedConfig['headers'], where: string) => Record<string, string>;
  readonly clock: Clock;
  readonly fetch?: typeof globalThis.fetch;
}

/** `{isin}`, `{symbol}` and `{base}` of a URL template replaced by the pair's (URL-encoded). */
export function expandUrl(template: string, pair: FairValuePair): string {
  const values: Record<string, string> = { isin: pair.isin ?? '', symbol: pair.symbol, base: pair.baseSymbol };
  return template.replace(/\{(isin|symbol|base)\}/g, (_, k: string) => encodeURIComponent(values[k] ?? ''));
}

/** A JSON feed of the pair: the configured URL, else the pair's own; null (with a problem) when there is none. */
export function feedOf(
  config: FeedConfig,
  fallbackUrl: string | undefined,
  pair: FairValuePair,
  services: FairValueServices,
  where: string,
  out: { readonly problems: string[]; readonly skipped: string[] },
): JsonFeed | null {
  const template = config.url ?? fallbackUrl;
  if (template === undefined) {
    out.skipped.push(`${where}: no url, and pair ${pair.symbol} has no feed of its own (pairs[].fairValue)`);
    return null;
  }
  try {
    return new JsonFeed({
      url: expandUrl(template, pair),
      pricePath: config.pricePath,
      timePath: config.timePath,
      timeoutMs: config.timeoutMs,
      headers: services.headers(config.headers, `${where}.headers`),
      clock: services.clock,
      ...(services.fetch === undefined ? {} : { fetch: services.fetch }),
    });
  } catch (e) {
    out.problems.push(e instanceof Error ? e.message : String(e));
    return null;
  }
}

export interface BuiltSources {
  readonly sources: FairValueSource[];
  /** What keeps the bot from starting (a secret that cannot be read). */
  readonly problems: string[];
  /** Sources left out for this pair, with why. */
  readonly skipped: string[];
}

export function buildSources(config: FairValueConfig, pair: FairValuePair, services: FairValueServices): BuiltSources {
  const out = { problems: [] as string[], skipped: [] as string[] };
  const sources: FairValueSource[] = [];
  const record = pair.isin === null ? null : new InstrumentRecord(services.instruments, pair.isin);
  config.sources.forEach((s, i) => {
    const where = `pair ${pair.symbol}: fairValue.sources.${i} (${s.kind})`;
    switch (s.kind) {
      case 'feed': {
        const feed = feedOf(s, pair.facts?.feedUrl, pair, services, where, out);
        if (feed !== null)
          sources.push(
            new PolledSource({ kind: 'feed', pollMs: s.pollMs, maxAgeMs: s.maxAgeMs, origin: feed.endpoint }, () =>
              feed.read(),
            ),
          );
        return;
      }
      case 'oracle': {
        const oracle = pair.facts?.oracle;
        if (oracle === undefined) {
          out.skipped.push(`${where}: pair ${pair.symbol} has no oracle (pairs[].fairValue.oracle)`);
          return;
        }
        const asset = oracle.asset ?? pair.baseToken;
        sources.push(
          new PolledSource({ kind: 'oracle', pollMs: s.pollMs, maxAgeMs: s.maxAgeMs, origin: oracle.address }, () =>
            services.oracle(pair.chain, oracle.address, asset),
          ),
        );
        return;
      }
      case 'nav':
      case 'bond': {
        if (record === null) {
          out.skipped.push(`${where}: pair ${pair.symbol} has no ISIN, so its instrument record cannot be found`);
          return;
        }
        if (s.kind === 'nav') {
          sources.push(navSource(s, record));
          return;
        }
        const y = 'feed' in s.yield ? s.yield.feed : null;
        const feed =
          y === null ? null : feedOf(y, pair.facts?.yieldFeedUrl, pair, services, `${where}.yield.feed`, out);
        if (y === null || feed !== null)
          sources.push(new BondSource(s, pair.facts?.bond, record, feed, services.clock));
        return;
      }
    }
  });
  return { sources, ...out };
}
