/** The configuration file of a bot run against a running sandbox (its manifest), written for one test. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const LADDER = fileURLToPath(new URL('../../../strategies/ladder.yaml', import.meta.url));

/**
 * Risk limits of a bot trading the sandbox's market: `maxInventory` binds on the pairs priced near 12 (their
 * ladder asks for 36 a side).
 */
export const SESSION_LIMITS = {
  maxInventory: '20',
  maxNotional: '2500',
  maxOpenOrders: 8,
  dailyLossLimit: '1000',
  maxDrawdown: '1000',
  staleMarketDataMs: 15_000,
};

export interface BotRunSettings {
  readonly dir: string;
  readonly manifest: string;
  readonly metricsPort: number;
  readonly store: string;
  readonly risk: Record<string, string | number>;
  readonly strategy?: string;
  readonly engine?: Record<string, unknown>;
  /** Market-making obligations of every sandbox pair (`sandbox.obligations`). */
  readonly obligations?: Record<string, string | number | boolean>;
  /** The sandbox's wallets that trade (`sandbox.wallets`); default its market makers. */
  readonly wallets?: readonly string[];
  readonly name: string;
  /** Further top-level keys (`record`, `evaluation`, ...). */
  readonly more?: Record<string, unknown>;
}

/** Writes `<dir>/<name>.yaml` and returns its path. */
export function writeBotConfig(s: BotRunSettings): string {
  const config = {
    sandbox: {
      manifest: s.manifest,
      strategy: s.strategy ?? LADDER,
      ...(s.obligations === undefined ? {} : { obligations: s.obligations }),
      ...(s.wallets === undefined ? {} : { wallets: s.wallets }),
    },
    calendar: { enabled: false },
    risk: s.risk,
    engine: {
      tickMs: 1000,
      phasePollMs: 500,
      balanceMaxAgeMs: 2000,
      inventoryCheckMs: 10_000,
      shutdownTimeoutMs: 30_000,
      ...s.engine,
    },
    store: { path: s.store },
    telemetry: { metricsPort: s.metricsPort, metricsHost: '127.0.0.1', logLevel: 'info' },
    ...s.more,
  };
  const path = join(s.dir, `${s.name}.yaml`);
  writeFileSync(path, stringify(config));
  return path;
}
