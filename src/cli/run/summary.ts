/** The one-line-per-pair summary printed every few seconds when the bot runs in a terminal. */
import type { Bot } from '../../engine/loop/bot.ts';
import { Decimal } from '../../core/decimal.ts';
import type { DesiredQuote } from '../../strategy/types.ts';

function best(quotes: readonly DesiredQuote[], side: 'buy' | 'sell'): DesiredQuote | undefined {
  return quotes.filter((q) => q.side === side).toSorted((a, b) => (side === 'buy' ? b.price.cmp(a.price) : a.price.cmp(b.price)))[0];
}

const fmt = (d: Decimal | null | undefined, places = 4): string => (d === null || d === undefined ? '-' : d.toDecimalPlaces(places).toFixed());

export function summaryLines(bot: Bot, symbols: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  for (const [pairId, loop] of bot.loops) {
    const last = loop.last;
    const pnl = bot.pnl.get(pairId);
    const status = bot.statuses.get(pairId)?.current;
    const bid = last === null ? undefined : best(last.quotes, 'buy');
    const ask = last === null ? undefined : best(last.quotes, 'sell');
    const mark = status?.lastPrice ?? last?.reference ?? null;
    lines.push(
      [
        (symbols.get(pairId) ?? pairId).padEnd(14),
        `bid ${bid === undefined ? '-' : `${fmt(bid.price)}x${fmt(bid.quantity)}`}`.padEnd(22),
        `ask ${ask === undefined ? '-' : `${fmt(ask.price)}x${fmt(ask.quantity)}`}`.padEnd(22),
        `pos ${fmt(pnl?.position)}`.padEnd(14),
        `pnl ${fmt(pnl?.total(mark) ?? new Decimal(0), 2)}`.padEnd(14),
        `fills ${pnl?.fills ?? 0}`.padEnd(10),
        last?.mode ?? 'starting',
      ].join(' '),
    );
  }
  return lines;
}
