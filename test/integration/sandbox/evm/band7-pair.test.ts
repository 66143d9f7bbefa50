/**
 * The sandbox's opt-in band 7 pair (`band7-pair.ts`) on a real node: deployed through the launcher's own path,
 * its book takes seven-decimal prices and refuses a price between two of them, with the tick the core derives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { derivePairRules } from '../../../../src/core/rules.ts';
import { completePair } from '../../../../src/sandbox/evm/pair-params.ts';
import { BAND7_PAIR } from '../../../../src/sandbox/venue/band7-pair.ts';
import { Harness } from '../../../support/sandbox/evm/harness.ts';

const FUNDED = {
  balances: { MMF7: '100000', EURe: '1000000' },
  allowances: { MMF7: 'unlimited', EURe: 'unlimited' },
};
/** A human price at the pair's quote internal scale (10^8). */
const px = (human: string): bigint => BigInt(new Decimal(human).mul(100_000_000).toFixed(0));

let h: Harness;
beforeAll(async () => {
  h = await Harness.start(completePair(BAND7_PAIR.pair), BAND7_PAIR.overrides ?? {}, [
    { name: 'alice', ...FUNDED },
    { name: 'bob', ...FUNDED },
  ]);
}, 60_000);
afterAll(async () => h?.stop());

describe('the band 7 sandbox pair', () => {
  it('ticks at 0.0000001 whatever its GRANULAR mode would say of its 10^8 quote scale', async () => {
    const rules = derivePairRules(completePair(BAND7_PAIR.pair));
    expect(rules.tick).toMatchObject({ kind: 'fixed', source: 'band 7 (granular: 7 decimal places)' });
    expect(await h.read('getTickTable')).toEqual([[0n], [10n]]);
    expect(await h.read('getLiquidityBand')).toBe(7n);
  });

  it('rests and trades seven-decimal prices and refuses a price between two of them', async () => {
    const ask = await h.place('alice', 'sell', 20n, px('0.9999999'));
    expect(ask.events.map((e) => e.name)).toEqual(['OrderReceived', 'NewSellOrder']);
    expect((await h.failure(h.place('bob', 'buy', 20n, px('0.99999995')))).code).toBe('E_VENUE_OFF_TICK');
    const deltas = await h.deltasOf(() => h.place('bob', 'buy', 20n, px('1.0000001')));
    // 20 at 0.9999999 is 19.999998 EURe, exact at the EURe native scale of 10^6; bob pays 10 bp on top (0.02).
    expect([deltas.alice?.base, deltas.bob?.base, deltas.bob?.quote]).toEqual([undefined, 20n, -20_019_998n]);
    expect(await h.read('getLastPrice')).toBe(px('0.9999999'));
  });
});
