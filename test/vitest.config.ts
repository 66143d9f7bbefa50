import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/temp-root.ts'],
    reporters: process.env.VITEST_JSON_OUT
      ? ['default', ['json', { outputFile: process.env.VITEST_JSON_OUT }]]
      : ['default'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    allowOnly: false,
  },
});
