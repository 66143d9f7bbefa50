/**
 * When a sandbox price feed publishes (deviation beyond the threshold, heartbeat, first answer, correction
 * of a fault; nothing while frozen) and how a value becomes the feed's integer answer.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import {
  checkPolicy,
  decideUpdate,
  DEFAULT_POLICY,
  jumped,
  movedBeyond,
  scaleAnswer,
  type LastAnswer,
} from '../../../../src/sandbox/oracle/decision.ts';

const HOUR = 3_600_000;
const last = (answer: bigint, atMs = 0, faulty = false): LastAnswer => ({ answer, atMs, faulty });
const decide = (l: LastAnswer | null, candidate: bigint, nowMs: number, frozen = false) =>
  decideUpdate({ last: l, candidate, nowMs, frozen }, DEFAULT_POLICY);

describe('oracle update decision', () => {
  it('defaults to a 50 bp deviation threshold and a one-hour heartbeat', () => {
    expect(DEFAULT_POLICY).toEqual({ deviationBps: 50, heartbeatMs: HOUR });
  });

  it('publishes the first answer at once', () => {
    expect(decide(null, 100_000n, 0)).toBe('first');
  });

  it('publishes on a move of more than the threshold, in either direction, and not on one of exactly it', () => {
    expect(decide(last(100_000n), 100_500n, 1000)).toBeNull();
    expect(decide(last(100_000n), 99_500n, 1000)).toBeNull();
    expect(decide(last(100_000n), 100_501n, 1000)).toBe('deviation');
    expect(decide(last(100_000n), 99_499n, 1000)).toBe('deviation');
  });

  it('publishes an unmoved value once the heartbeat has passed since the last answer', () => {
    expect(decide(last(100_000n, 5_000), 100_000n, 5_000 + HOUR - 1)).toBeNull();
    expect(decide(last(100_000n, 5_000), 100_000n, 5_000 + HOUR)).toBe('heartbeat');
  });

  it('a deviation wins over a heartbeat that is also due', () => {
    expect(decide(last(100_000n), 200_000n, 2 * HOUR)).toBe('deviation');
  });

  it('corrects a faulty answer at the next round whatever the thresholds say', () => {
    expect(decide(last(100_010n, 0, true), 100_000n, 1)).toBe('correction');
  });

  it('publishes nothing while frozen: not the first answer, not a deviation, not a heartbeat, not a correction', () => {
    expect(decide(null, 1n, 0, true)).toBeNull();
    expect(decide(last(100_000n), 300_000n, 10 * HOUR, true)).toBeNull();
    expect(decide(last(100_010n, 0, true), 100_000n, 1, true)).toBeNull();
  });

  it('measures the move against the last answer, also for a zero or negative last answer', () => {
    expect(movedBeyond(0n, 1n, 50)).toBe(true);
    expect(movedBeyond(0n, 0n, 50)).toBe(false);
    expect(movedBeyond(-100_000n, -100_600n, 50)).toBe(true);
    expect(movedBeyond(-100_000n, -100_400n, 50)).toBe(false);
    expect(movedBeyond(100_000n, 100_001n, 0)).toBe(true);
  });

  it('refuses a threshold that is not whole non-negative basis points and a heartbeat that is not positive', () => {
    expect(() => checkPolicy({ deviationBps: 2.5, heartbeatMs: HOUR })).toThrow(/whole basis points/);
    expect(() => checkPolicy({ deviationBps: -1, heartbeatMs: HOUR })).toThrow(/whole basis points/);
    expect(() => checkPolicy({ deviationBps: 50, heartbeatMs: 0 })).toThrow(/heartbeat/);
  });
});

describe('oracle answers', () => {
  it('scales a value exactly when it fits the decimals', () => {
    expect(scaleAnswer(new Decimal('101.25'), 8)).toBe(10_125_000_000n);
    expect(scaleAnswer(new Decimal('101.25'), 14)).toBe(10_125_000_000_000_000n);
    expect(scaleAnswer(new Decimal('-3.5'), 2)).toBe(-350n);
  });

  it('rounds a value with more digits half-even (a measurement), never truncating', () => {
    expect(scaleAnswer(new Decimal('1.234565'), 5)).toBe(123_456n);
    expect(scaleAnswer(new Decimal('1.234575'), 5)).toBe(123_458n);
    expect(scaleAnswer(new Decimal('1.2345651'), 5)).toBe(123_457n);
    expect(scaleAnswer(new Decimal('0.5'), 0)).toBe(0n);
    expect(scaleAnswer(new Decimal('1.5'), 0)).toBe(2n);
    expect(scaleAnswer(new Decimal('-2.5'), 0)).toBe(-2n);
  });

  it('refuses decimals an i128 cannot carry and values that are not finite', () => {
    expect(() => scaleAnswer(new Decimal(1), 39)).toThrow(/0\.\.38/);
    expect(() => scaleAnswer(new Decimal(1), 1.5)).toThrow(/0\.\.38/);
    expect(() => scaleAnswer(new Decimal(Infinity), 8)).toThrow(/finite/);
  });

  it('a jump is the value moved by whole basis points, up or down', () => {
    expect(jumped(new Decimal('100'), 250).toFixed()).toBe('102.5');
    expect(jumped(new Decimal('100'), -100).toFixed()).toBe('99');
    expect(() => jumped(new Decimal('100'), 0.5)).toThrow(/whole basis points/);
  });
});
