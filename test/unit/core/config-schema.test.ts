import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSchema, SCHEMA_FILES } from '../../../src/cli/commands/config.ts';

describe('generated JSON Schema', () => {
  it('config/schema is up to date with the config schemas (run `npm run schema` after changing them)', () => {
    for (const name of Object.keys(SCHEMA_FILES) as Array<keyof typeof SCHEMA_FILES>) {
      const committed = readFileSync(new URL(`../../../config/schema/${name}`, import.meta.url), 'utf8');
      expect({ name, text: committed }).toEqual({ name, text: renderSchema(name) });
    }
  });
  it('refuses unknown keys, as the loader does', () => {
    const schema = JSON.parse(renderSchema('bot-config.schema.json'));
    expect(schema.additionalProperties).toBe(false);
  });
});
