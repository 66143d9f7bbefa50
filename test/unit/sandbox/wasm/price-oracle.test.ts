/**
 * The chain B SEP-40 price oracle contract in an emulator in this process: the interface's answers and their
 * encodings (checked with the SDK's own decoder), storage per resolution tick, the admin's signed
 * `set_price` and the refusals (someone else, a timestamp off the tick grid or in the future, an earlier tick,
 * an asset it does not quote).
 */
import { Keypair, scValToNative, xdr } from '@stellar/stellar-sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { priceUpdateScVal, type Sep40Asset } from '../../../../src/sandbox/wasm/contracts/price-oracle.ts';
import type { PriceOracleContract } from '../../../../src/sandbox/wasm/contracts/price-oracle.ts';
import { deployPriceOracle } from '../../../../src/sandbox/wasm/deploy.ts';
import { WasmEmulator } from '../../../../src/sandbox/wasm/emulator.ts';
import { scv, type ScVal } from '../../../../src/sandbox/wasm/scval.ts';
import { signedCall } from '../../../../src/sandbox/wasm/signed-call.ts';
import { TestClock } from '../../../support/clock.ts';

const RESOLUTION = 300;
const TOKEN = 'CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA';
const BOND: Sep40Asset = { stellar: TOKEN };
const FUND: Sep40Asset = { other: 'FUND1' };

let clock: TestClock;
let emu: WasmEmulator;
let admin: Keypair;
let oracle: PriceOracleContract;

beforeEach(() => {
  // On a tick, so that the ledger's close time is one.
  clock = new TestClock(Date.UTC(2026, 2, 2, 9, 0, 0));
  emu = new WasmEmulator({ clock, ledgerIntervalMs: 0 });
  admin = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 7));
  oracle = deployPriceOracle(emu, admin, {
    name: 'test',
    base: { other: 'EURe' },
    assets: [BOND, FUND],
    decimals: 14,
    resolutionSeconds: RESOLUTION,
  });
  emu.closeLedger();
});

const asset = (a: Sep40Asset): ScVal =>
  'stellar' in a
    ? scv.vec([scv.sym('Stellar'), scv.address(a.stellar)])
    : scv.vec([scv.sym('Other'), scv.sym(a.other)]);
const native = (v: ScVal): unknown => scValToNative(xdr.ScVal.fromXdrObject(v));

function view(fn: string, args: ScVal[] = []): unknown {
  const out = emu.read({ source: admin.publicKey(), contract: oracle.address, fn, args });
  if (!out.ok) throw new Error(out.message);
  return native(out.value);
}

function setPrice(updates: [Sep40Asset, bigint][], timestamp: bigint) {
  return emu.control({
    source: admin.publicKey(),
    contract: oracle.address,
    fn: 'set_price',
    args: [scv.vec(updates.map(([a, p]) => priceUpdateScVal(a, p))), scv.u64(timestamp)],
  });
}

const now = () => emu.nextCloseTime();
const tick = () => now() - (now() % BigInt(RESOLUTION));

describe('SEP-40 price oracle', () => {
  it('answers base, assets, decimals, resolution and admin in their Soroban encodings', () => {
    expect(view('base')).toEqual(['Other', 'EURe']);
    expect(view('assets')).toEqual([
      ['Stellar', TOKEN],
      ['Other', 'FUND1'],
    ]);
    expect(view('decimals')).toBe(14);
    expect(view('resolution')).toBe(RESOLUTION);
    expect(view('admin')).toBe(admin.publicKey());
  });

  it('has no price before the first update: lastprice, price and prices are None', () => {
    expect(view('lastprice', [asset(BOND)])).toBeNull();
    expect(view('price', [asset(BOND), scv.u64(now())])).toBeNull();
    expect(view('prices', [asset(BOND), scv.u32(5)])).toBeNull();
  });

  it('keeps one price per asset and tick: lastprice, price at any second of the tick, prices newest first', () => {
    const t0 = tick();
    expect(
      setPrice(
        [
          [BOND, 101n],
          [FUND, 7n],
        ],
        t0,
      ).ok,
    ).toBe(true);
    clock.advance(2 * RESOLUTION * 1000);
    const t2 = tick();
    expect(setPrice([[BOND, 102n]], t2).ok).toBe(true);
    expect(view('lastprice', [asset(BOND)])).toEqual({ price: 102n, timestamp: t2 });
    expect(view('lastprice', [asset(FUND)])).toEqual({ price: 7n, timestamp: t0 });
    expect(view('price', [asset(BOND), scv.u64(t0 + 299n)])).toEqual({ price: 101n, timestamp: t0 });
    expect(view('price', [asset(BOND), scv.u64(t0 + 300n)])).toBeNull();
    expect(view('prices', [asset(BOND), scv.u32(5)])).toEqual([
      { price: 102n, timestamp: t2 },
      { price: 101n, timestamp: t0 },
    ]);
    expect(view('prices', [asset(BOND), scv.u32(1)])).toEqual([{ price: 102n, timestamp: t2 }]);
    expect(view('prices', [asset(BOND), scv.u32(21)])).toBeNull();
  });

  it('a second update in the same tick replaces that tick record', () => {
    const t0 = tick();
    setPrice([[BOND, 101n]], t0);
    setPrice([[BOND, 105n]], t0);
    expect(view('prices', [asset(BOND), scv.u32(5)])).toEqual([{ price: 105n, timestamp: t0 }]);
  });

  it('refuses a timestamp off the tick grid, after the ledger close time, or before the asset last tick', () => {
    const t0 = tick();
    const codes = (r: ReturnType<typeof setPrice>) => (r.ok ? 'ok' : r.error);
    expect(codes(setPrice([[BOND, 1n]], t0 + 1n))).toEqual({ type: 0, contractCode: 5 });
    expect(codes(setPrice([[BOND, 1n]], t0 + BigInt(RESOLUTION)))).toEqual({ type: 0, contractCode: 5 });
    clock.advance(RESOLUTION * 1000);
    expect(setPrice([[BOND, 1n]], tick()).ok).toBe(true);
    expect(codes(setPrice([[BOND, 1n]], t0))).toEqual({ type: 0, contractCode: 5 });
  });

  it('refuses an asset it does not quote (#2), a price that is not positive and an empty update (#8)', () => {
    const codes = (r: ReturnType<typeof setPrice>) => (r.ok ? 'ok' : r.error);
    expect(codes(setPrice([[{ other: 'XYZ' }, 1n]], tick()))).toEqual({ type: 0, contractCode: 2 });
    expect(codes(setPrice([[BOND, 0n]], tick()))).toEqual({ type: 0, contractCode: 8 });
    expect(codes(setPrice([], tick()))).toEqual({ type: 0, contractCode: 8 });
    // A refused update changes nothing, even for the assets before the bad one.
    expect(
      codes(
        setPrice(
          [
            [FUND, 3n],
            [BOND, -1n],
          ],
          tick(),
        ),
      ),
    ).toEqual({ type: 0, contractCode: 8 });
    expect(view('lastprice', [asset(FUND)])).toBeNull();
  });

  it('the admin publishes by a signed transaction; the same call signed by another account fails', async () => {
    const args = [scv.vec([priceUpdateScVal(BOND, 4242n)]), scv.u64(tick())];
    const applied = signedCall(emu, admin, oracle.address, 'set_price', args);
    emu.closeLedger();
    expect((await applied).success).toBe(true);
    expect(view('lastprice', [asset(BOND)])).toEqual({ price: 4242n, timestamp: tick() });

    const intruder = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 9));
    emu.fundAccount(intruder.publicKey(), 10_000_000_000n);
    const forged = signedCall(emu, intruder, oracle.address, 'set_price', [
      scv.vec([priceUpdateScVal(BOND, 1n)]),
      scv.u64(tick()),
    ]);
    emu.closeLedger();
    expect(await forged).toMatchObject({ success: false, error: { type: 9 } });
    expect(view('lastprice', [asset(BOND)])).toEqual({ price: 4242n, timestamp: tick() });
  });
});
