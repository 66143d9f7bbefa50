/**
 * `dlt-mm obligations` without a running bot: windows go straight into the state file, with their reason, and
 * come back from it; a window is ended by its number.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/io.ts';
import { fileCliIo } from '../../support/cli-io.ts';
import { main } from '../../../src/cli/main.ts';
import { freePort } from '../../../src/sandbox/net.ts';
import { openStore } from '../../../src/store/store.ts';

let dir: string;
let out: string[];
let io: CliIo;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-obligations-cli-'));
  out = [];
  // Nothing listens on this port: the command finds no running bot and writes the state file itself.
  writeFileSync(
    join(dir, 'bot.yaml'),
    `sandbox: { manifest: m.json }\nstore: { path: state.sqlite }\ntelemetry: { metricsPort: ${await freePort()} }\n`,
  );
  openStore(join(dir, 'state.sqlite')).close();
  io = fileCliIo(dir, out);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('dlt-mm obligations', () => {
  it('declares, lists and ends a window in the state file when the bot is not running', async () => {
    const declare = [
      'obligations',
      'declare',
      '--config',
      'bot.yaml',
      '--reason',
      'price feed of the venue failed',
      '--from',
      '2026-03-02T09:00:00Z',
      '--to',
      '2026-03-02T09:20:00Z',
    ];
    expect(await main(declare, io)).toBe(0);
    expect(out.join('')).toContain('declared in');
    expect(await main(['obligations', 'list', '--config', 'bot.yaml', '--day', '2026-03-02', '--json'], io)).toBe(0);
    const listed = JSON.parse(out.at(-1) as string) as Array<Record<string, unknown>>;
    expect(listed).toMatchObject([
      {
        id: 1,
        kind: 'exception',
        pairId: null,
        fromMs: Date.parse('2026-03-02T09:00:00Z'),
        toMs: Date.parse('2026-03-02T09:20:00Z'),
        reason: 'price feed of the venue failed',
        source: 'command',
      },
    ]);
    expect(
      await main(['obligations', 'end', '--config', 'bot.yaml', '--id', '1', '--at', '2026-03-02T09:10:00Z'], io),
    ).toBe(0);
    const store = openStore(join(dir, 'state.sqlite'));
    expect(store.obligations.window(1)?.toMs).toBe(Date.parse('2026-03-02T09:10:00Z'));
    store.close();
  });

  it('refuses a declaration without a reason, and a time it cannot read', async () => {
    expect(await main(['obligations', 'declare', '--config', 'bot.yaml'], io)).toBe(2);
    expect(
      await main(['obligations', 'declare', '--config', 'bot.yaml', '--reason', 'x', '--from', 'yesterday'], io),
    ).toBe(2);
    expect(out.join('')).toContain('--from: "yesterday" is not an ISO 8601 time');
  });
});
