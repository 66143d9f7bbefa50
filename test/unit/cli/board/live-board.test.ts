import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LiveBoard, type TerminalStream } from '../../../../src/cli/board/live-board.ts';
import type { BoardModel } from '../../../../src/cli/board/model.ts';
import { RecentWarnings } from '../../../../src/cli/board/warnings.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { createLogger } from '../../../../src/telemetry/logger.ts';

const T = Date.UTC(2026, 2, 2, 9, 30, 0);

/** A terminal of 200 x 30 whose output the test reads: each write is there as soon as it is made. */
function terminal(): { stream: TerminalStream; written: () => string; take: () => string } {
  let all = '';
  let mark = 0;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      all += chunk.toString();
      done();
    },
  });
  const stream = Object.assign(output, { columns: 200, rows: 30, isTTY: true });
  return {
    stream,
    written: () => all,
    take: () => {
      const s = all.slice(mark);
      mark = all.length;
      return s;
    },
  };
}

/** A timer driven by the test: `tick()` runs what is scheduled. */
function manualEvery() {
  const fns = new Set<() => void>();
  return {
    every: (_ms: number, fn: () => void) => {
      fns.add(fn);
      return () => fns.delete(fn);
    },
    tick: () => {
      for (const f of fns) f();
    },
    get scheduled() {
      return fns.size;
    },
  };
}

function model(fills: number, phase: BoardModel['phase'] = 'trading'): BoardModel {
  return {
    atMs: T,
    phase,
    logPath: 'bot.log',
    pairs: [
      {
        pairId: 'p',
        symbol: 'BOND26EURe',
        chain: 'evm',
        bid: { price: new Decimal('99.8'), size: new Decimal('1') },
        ask: { price: new Decimal('100.2'), size: new Decimal('1') },
        spreadBps: new Decimal('40'),
        fair: null,
        obligations: null,
        position: new Decimal(0),
        pnl: new Decimal(0),
        fills,
        markout: null,
        state: { kind: 'active', detail: '' },
      },
    ],
    wallets: [],
    warnings: [],
    warningCount: 0,
  };
}

describe('live board', () => {
  it('draws at start, redraws in place on every tick (only what changed) and leaves the last frame at stop', () => {
    const t = terminal();
    const timer = manualEvery();
    let fills = 1;
    let phase: BoardModel['phase'] = 'trading';
    const errors: unknown[] = [];
    const board = new LiveBoard({
      stream: t.stream,
      snapshot: () => model(fills, phase),
      every: timer.every,
      intervalMs: 1000,
      color: false,
      onError: (e) => errors.push(e),
    });
    board.start();
    const first = t.take();
    expect(first).toContain('BOND26EURe');
    expect(first).toContain('dlt-mm trading');
    expect(timer.scheduled).toBe(1);

    fills = 2;
    timer.tick();
    const second = t.take();
    // A patch: the cursor moves up to the changed row, which is rewritten; the header is not written again.
    expect(second).toMatch(new RegExp(`${String.fromCharCode(27)}\\[\\d*A`));
    expect(second).toContain('BOND26EURe');
    expect(second).not.toContain('dlt-mm trading');

    timer.tick();
    expect(t.take()).toBe('');

    phase = 'stopped';
    board.stop();
    expect(t.take()).toContain('dlt-mm stopped');
    expect(timer.scheduled).toBe(0);
    board.draw();
    expect(t.take()).toBe('');
    expect(errors).toEqual([]);
  });

  it('a frame that cannot be built shows the error on the board and reports it once', () => {
    const t = terminal();
    const timer = manualEvery();
    const errors: unknown[] = [];
    const board = new LiveBoard({
      stream: t.stream,
      snapshot: () => {
        throw new Error('database is closed');
      },
      every: timer.every,
      intervalMs: 1000,
      color: false,
      onError: (e) => errors.push(e),
    });
    board.start();
    timer.tick();
    board.stop();
    expect(t.written()).toContain('the board cannot be drawn (database is closed)');
    expect(errors).toHaveLength(1);
  });
});

describe('recent warnings', () => {
  it('keeps the newest warnings and errors of the log, redacted, in the short form, and counts them all', () => {
    const warnings = new RecentWarnings(2);
    const logger = createLogger({
      destination: warnings,
      name: 'dlt-mm',
      now: () => T,
      knownSecrets: ['s3cr3t-value'],
    });
    logger.info('placed');
    logger.warn({ pair: 'p' }, 'pair paused: stale-market-data');
    logger.error({ token: 'abc' }, 'cancel failed with s3cr3t-value');
    logger.debug('ignored');
    logger.fatal('kill switch tripped');
    expect(warnings.count).toBe(3);
    expect(warnings.lines).toEqual([
      { level: 'error', text: '09:30:00.000 ERROR cancel failed with *** token=[REDACTED]' },
      { level: 'fatal', text: '09:30:00.000 FATAL kill switch tripped' },
    ]);
    warnings.write('not json\n');
    expect(warnings.count).toBe(3);
  });
});
