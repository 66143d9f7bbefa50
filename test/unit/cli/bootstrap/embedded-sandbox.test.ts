import { describe, expect, it } from 'vitest';
import { embeddedSandboxOptions } from '../../../../src/cli/bootstrap/manifest.ts';
import { parseBotConfig } from '../../../../src/core/config/load.ts';

const configOf = (sandbox: string) => parseBotConfig(`sandbox:\n${sandbox}`, 'bot.yaml');

describe('the embedded sandbox of dlt-mm run', () => {
  it("gives its chain B market maker the configuration's sandbox.channelAccounts, beside the test's own chain B settings", () => {
    const config = configOf('  embedded: true\n  portBase: 20000\n  channelAccounts: 32\n');
    expect(embeddedSandboxOptions(config, '/w', { wasm: { ledgerIntervalMs: 250 } })).toMatchObject({
      ports: { api: 20000, evm: 20001, wasm: 20002 },
      wasm: { channelAccounts: 32, ledgerIntervalMs: 250 },
      manifest: '/w/.sandbox/embedded-manifest.json',
    });
  });

  it("leaves the count to the sandbox's default when the configuration names none, and refuses a count of 0", () => {
    expect(embeddedSandboxOptions(configOf('  embedded: true\n'), '/w').wasm).toBeUndefined();
    expect(() => configOf('  embedded: true\n  channelAccounts: 0\n')).toThrow(/sandbox\.channelAccounts/);
  });
});
