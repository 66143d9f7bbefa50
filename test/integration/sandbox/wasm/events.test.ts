/**
 * getEvents as a poller uses it: paging with the returned cursor across many ledgers (never missing or
 * repeating an event), contract and topic filters with wildcards, the id/cursor format, and the retention
 * window outside which a start ledger is an invalid request.
 */
import { Address, nativeToScVal, rpc, scValToNative } from '@stellar/stellar-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { mint } from '../../../../src/sandbox/wasm/operator.ts';
import { fileHarness, wallet } from '../../../support/sandbox/wasm/harness.ts';

const RETENTION = 40;
const h = fileHarness({ retentionLedgers: RETENTION });
let firstLedger = 0;
let issued = 0;

beforeAll(async () => {
  const kp = wallet(h, h.pair);
  h.emu.closeLedger();
  firstLedger = h.emu.latest.seq + 1;
  // 30 ledgers, the n-th with n % 4 mint events (some ledgers carry none).
  for (let n = 0; n < 30; n++) {
    for (let i = 0; i < n % 4; i++) {
      mint(h.emu, h.pair, 'base', kp.publicKey(), BigInt(1 + issued++));
    }
    h.emu.closeLedger();
  }
});

const mintFilter = () => ({
  type: 'contract' as const,
  contractIds: [h.pair.base.address],
  topics: [[nativeToScVal('mint', { type: 'symbol' }).toXDR('base64'), '**']],
});

describe('getEvents', () => {
  it('pages across many ledgers with the returned cursor, in order, without gaps or repeats', async () => {
    const amounts: bigint[] = [];
    const ids: string[] = [];
    let page = await h.server.getEvents({ startLedger: firstLedger, filters: [mintFilter()], limit: 7 });
    for (let guard = 0; guard < 50; guard++) {
      amounts.push(...page.events.map((e) => scValToNative(e.value) as bigint));
      ids.push(...page.events.map((e) => e.id));
      if (page.events.length === 0) break;
      page = await h.server.getEvents({ cursor: page.cursor, filters: [mintFilter()], limit: 7 });
    }
    expect(amounts).toEqual(Array.from({ length: issued }, (_, i) => BigInt(i + 1)));
    expect(ids.every((id) => /^\d{19}-\d{10}$/.test(id))).toBe(true);
    expect(ids).toEqual(ids.toSorted());
  });

  it('names each event by ledger, transaction and index: id = (ledger << 32 | tx << 12 | op) and the event index', async () => {
    const res = await h.server.getEvents({ startLedger: firstLedger, filters: [mintFilter()], limit: 3 });
    const e = res.events[0] as rpc.Api.EventResponse;
    const [toid, index] = e.id.split('-') as [string, string];
    expect(BigInt(toid) >> 32n).toBe(BigInt(e.ledger));
    expect(Number(index)).toBe(0);
    expect(res.cursor).toBe(res.events[2]?.id);
  });

  it('filters by topic with * and exact segments, and by contract', async () => {
    const kp = wallet(h, h.pair);
    h.emu.closeLedger();
    const to = new Address(kp.publicKey()).toScVal().toXDR('base64');
    const sym = nativeToScVal('mint', { type: 'symbol' }).toXDR('base64');
    const exact = await h.server.getEvents({
      startLedger: h.emu.latest.seq,
      filters: [{ type: 'contract', topics: [[sym, to, '*']] }],
    });
    expect(exact.events.map((e) => e.contractId?.contractId())).toEqual([h.pair.base.address, h.pair.quote.address]);
    const tooShort = await h.server.getEvents({
      startLedger: h.emu.latest.seq,
      filters: [{ type: 'contract', topics: [[sym, to]] }],
    });
    expect(tooShort.events).toEqual([]);
    const otherContract = await h.server.getEvents({
      startLedger: h.emu.latest.seq,
      filters: [{ type: 'contract', contractIds: [h.noPrefund.base.address], topics: [[sym, '**']] }],
    });
    expect(otherContract.events).toEqual([]);
  });

  it('when a page is not full, returns a cursor at the end of the scanned window, from which polling resumes', async () => {
    const res = await h.server.getEvents({ startLedger: h.emu.latest.seq, filters: [mintFilter()] });
    const kp = wallet(h, h.pair);
    h.emu.closeLedger();
    const next = await h.server.getEvents({ cursor: res.cursor, filters: [mintFilter()] });
    expect(next.events.map((e) => scValToNative(e.topic[1] as never))).toEqual([kp.publicKey()]);
  });

  it("refuses a start ledger outside the retention window with the server's invalid-request error", async () => {
    for (let i = 0; i < RETENTION; i++) h.emu.closeLedger();
    const health = await h.server.getHealth();
    expect(health.latestLedger - health.oldestLedger + 1).toBe(RETENTION);
    await expect(h.server.getEvents({ startLedger: firstLedger, filters: [] })).rejects.toMatchObject({
      code: -32600,
      message: `startLedger must be within the ledger range: ${health.oldestLedger} - ${health.latestLedger}`,
    });
    await expect(h.server.getEvents({ startLedger: health.latestLedger + 1, filters: [] })).rejects.toMatchObject({
      code: -32600,
    });
    expect((await h.server.getEvents({ startLedger: health.oldestLedger, filters: [] })).oldestLedger).toBe(
      health.oldestLedger,
    );
  });
});
