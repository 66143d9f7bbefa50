import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DltError, ERROR_CATALOGUE, type ErrorCode } from '../../../src/core/errors.ts';

/** The error-code table of config/README.md. */
const readme = readFileSync(new URL('../../../config/README.md', import.meta.url), 'utf8');

function readmeTable(): Map<string, { summary: string; retryable: string }> {
  const start = readme.indexOf('<!-- error-codes:start -->');
  const end = readme.indexOf('<!-- error-codes:end -->');
  if (start < 0 || end < start) throw new Error('config/README.md lacks the error-code table markers');
  const rows = new Map<string, { summary: string; retryable: string }>();
  for (const line of readme.slice(start, end).split('\n')) {
    const m = /^\| `(E_[A-Z0-9_]+)` \| (.*) \| (yes|no) \|$/.exec(line);
    if (m) rows.set(m[1] as string, { summary: m[2] as string, retryable: m[3] as string });
  }
  return rows;
}

describe('error catalogue', () => {
  it('the table of config/README.md lists exactly the codes of the catalogue, with the same summary and retry flag', () => {
    const table = readmeTable();
    const expected = new Map(
      Object.entries(ERROR_CATALOGUE).map(([code, spec]) => [
        code,
        { summary: spec.summary, retryable: spec.retryable ? 'yes' : 'no' },
      ]),
    );
    expect(Object.fromEntries(table)).toEqual(Object.fromEntries(expected));
  });
  it('an error carries its code, details and cause, and knows whether a retry can help', () => {
    const cause = new Error('root');
    const e = new DltError('E_VENUE_INSUFFICIENT_ALLOWANCE', 'allowance 5 < 7', { details: { allowance: '5' }, cause });
    expect(e.code satisfies ErrorCode).toBe('E_VENUE_INSUFFICIENT_ALLOWANCE');
    expect(e.retryable).toBe(true);
    expect(e.cause).toBe(cause);
    expect(e.toJSON()).toEqual({
      code: 'E_VENUE_INSUFFICIENT_ALLOWANCE',
      message: 'allowance 5 < 7',
      retryable: true,
      details: { allowance: '5' },
    });
  });
});
