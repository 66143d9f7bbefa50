import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSchema } from '../../../src/cli/commands/config.ts';
import { configTable } from '../../../src/cli/config-table.ts';

/** The configuration reference beside the shipped files (config/README.md). */
const readme = readFileSync(new URL('../../../config/README.md', import.meta.url), 'utf8');

describe('configuration reference (config/README.md)', () => {
  it('lists every key of the bot configuration exactly as the schema defines it', () => {
    const start = readme.indexOf('<!-- config-keys:start -->');
    const end = readme.indexOf('<!-- config-keys:end -->');
    if (start < 0 || end < start) throw new Error('config/README.md lacks the config-keys markers');
    const documented = readme.slice(start + '<!-- config-keys:start -->'.length, end).trim();
    expect(documented).toBe(configTable(JSON.parse(renderSchema('bot-config.schema.json'))));
  });
  it('covers nested keys of lists and sections', () => {
    const table = configTable(JSON.parse(renderSchema('bot-config.schema.json')));
    for (const key of [
      '`wallets[].key`',
      '`pairs[].risk.dailyLossLimit`',
      '`risk.maxDrawdown`',
      '`engine.shutdownTimeoutMs`',
      '`chains.wasm.approvalLedgers`',
    ])
      expect(table).toContain(key);
  });
});
