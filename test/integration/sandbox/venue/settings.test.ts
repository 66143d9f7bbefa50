/**
 * The sandbox's settings and clock without starting anything: the shipped `config/sandbox.yaml` holds
 * exactly the defaults, flags layer over the file, bad settings are refused with every problem listed, and
 * the clock's three modes move as documented (never backwards).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSandboxArgs } from '../../../../src/cli/commands/sandbox.ts';
import { PROJECT_ROOT } from '../../../../src/sandbox/evm/compile.ts';
import { SandboxClock } from '../../../../src/sandbox/venue/clock.ts';
import {
  defaultManifestPath,
  mergeSettings,
  parseSandboxConfig,
  readSandboxYaml,
} from '../../../../src/sandbox/venue/options.ts';

describe('settings', () => {
  it('ships config/sandbox.yaml with the defaults', () => {
    const file = readSandboxYaml(readFileSync(`${PROJECT_ROOT}config/sandbox.yaml`, 'utf8'), 'config/sandbox.yaml');
    expect(parseSandboxConfig(file)).toEqual(parseSandboxConfig({}));
    expect(parseSandboxConfig({}).ports).toEqual({ api: 8080, evm: 8545, wasm: 8000 });
  });

  it('layers flags over the file, with --port-base setting all three ports', () => {
    const args = parseSandboxArgs([
      '--port-base',
      '9000',
      '--wasm-port',
      '9100',
      '--no-flow',
      '--block-time',
      '500',
      '--log-level',
      'info',
      '--band7-pair',
    ]);
    const merged = parseSandboxConfig(mergeSettings({ ports: { api: 1 }, flow: { seed: 5 } }, args.settings));
    expect([
      merged.ports,
      merged.flow.enabled,
      merged.flow.seed,
      merged.evm.blockTimeMs,
      args.logLevel,
      merged.band7Pair,
    ]).toEqual([{ api: 9000, evm: 9001, wasm: 9100 }, false, 5, 500, 'info', true]);
    expect(parseSandboxConfig({}).band7Pair).toBe(false);
    expect([defaultManifestPath(8080), defaultManifestPath(9000)]).toEqual([
      '.sandbox/manifest.json',
      '.sandbox/manifest-9000.json',
    ]);
  });

  it('gives the chain B market maker as many channel accounts as asked for (--channel-accounts), 8 by default', () => {
    const args = parseSandboxArgs(['--channel-accounts', '32']);
    expect(
      parseSandboxConfig(mergeSettings({ wasm: { channelAccounts: 4 } }, args.settings)).wasm.channelAccounts,
    ).toBe(32);
    expect(parseSandboxConfig({}).wasm.channelAccounts).toBe(8);
    expect(() => parseSandboxConfig({ wasm: { channelAccounts: 0 } })).toThrow(/wasm\.channelAccounts/);
    expect(() => parseSandboxArgs(['--channel-accounts', 'many'])).toThrow(/--channel-accounts takes a whole number/);
  });

  it('refuses unknown keys and bad values, listing every problem', () => {
    let problems: string[] = [];
    try {
      parseSandboxConfig({ ports: { api: 70000 }, trading: { mode: 'sometimes' }, surprise: 1 });
    } catch (e) {
      problems = (e as { details: { problems: string[] } }).details.problems;
    }
    expect(problems.map((p) => p.split(':')[0])).toEqual(['ports.api', 'trading.mode', '(root)']);
  });
});

describe('sandbox clock', () => {
  it('runs accelerated from its start once begun, moves forward by hand, and never goes back', () => {
    let wall = 1_000;
    const clock = new SandboxClock({ mode: 'accelerated', speed: 60, startMs: 5_000_000, wallMs: () => wall });
    // Start-up: the clock stands at its start until the sandbox is ready.
    wall += 7_000;
    expect(clock.nowMs()).toBe(5_000_000);
    clock.begin();
    wall += 1_000;
    expect(clock.nowMs()).toBe(5_060_000);
    clock.begin();
    expect(clock.nowMs()).toBe(5_060_000);
    clock.advance(40_000);
    expect(clock.nowMs()).toBe(5_100_000);
    expect(() => clock.set(5_000_000)).toThrow(/only moves forward/);
    expect(clock.set(6_000_000)).toBe(6_000_000);
    wall -= 500;
    expect(clock.nowMs()).toBe(6_000_000);
  });

  it('stands still in manual mode and follows the wall clock in real mode', () => {
    let wall = 0;
    const manual = new SandboxClock({ mode: 'manual', startMs: 10, wallMs: () => wall });
    const real = new SandboxClock({ mode: 'real', wallMs: () => wall });
    wall = 1_234;
    expect([manual.nowMs(), real.nowMs()]).toEqual([10, 1_234]);
    expect(manual.advance(5)).toBe(15);
    expect(() => manual.advance(-1)).toThrow(/only moves forward/);
    expect(manual.state()).toEqual({ mode: 'manual', speed: 1, nowMs: 15, now: '1970-01-01T00:00:00.015Z' });
  });
});
