/**
 * Every contract error code the chain B contracts raise, as a client sees it: in the simulation's error
 * (`Error(Contract, #n)`, the real server's rendering) and, where state changes between simulation and
 * inclusion, as a FAILED transaction whose diagnostic event carries the code.
 */
import { Address, Keypair, nativeToScVal, rpc, type xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { approve, setAuthorized, setClient, setPhase, setUpWallet } from '../../../../src/sandbox/wasm/operator.ts';
import {
  build,
  failedContractCode,
  hashOf,
  orderArgs,
  fileHarness,
  wallet,
} from '../../../support/sandbox/wasm/harness.ts';

const h = fileHarness();

const order = (user: string, quantity: bigint, price: bigint, crossId?: Uint8Array) =>
  orderArgs(user, { quantity, price }, crossId);

async function simulationError(
  source: Keypair,
  fn: string,
  args: xdr.ScVal[],
  contract = h.pair.book.address,
): Promise<number | null> {
  const sim = await h.server.simulateTransaction(await build(h, source, contract, fn, args));
  if (!rpc.Api.isSimulationError(sim)) return null;
  const m = /Error\(Contract, #(\d+)\)/.exec(sim.error);
  return m === null ? null : Number(m[1]);
}

/** A wallet with every permission and no quote trustline, but an approval (approving needs no trustline). */
function walletWithoutQuoteTrustline(): Keypair {
  const kp = Keypair.random();
  h.emu.fundAccount(kp.publicKey(), 100_000_000_000n);
  setClient(h.emu, h.venue, kp.publicKey(), {
    id: 9_999n,
    canBuy: true,
    canSell: true,
    canCancel: true,
    canTransfer: true,
    isMarketMaker: false,
  });
  approve(h.emu, h.pair, 'quote', kp.publicKey(), h.pair.book.address, 10n ** 12n, h.emu.latest.seq + 1000);
  return kp;
}

describe('contract errors in simulation', () => {
  const cases: Array<[string, number, () => Promise<number | null>]> = [
    [
      '#6 ClientNotFound: the user is not in the registry',
      6,
      async () => {
        const kp = Keypair.random();
        setUpWallet(h.emu, h.venue, h.pair, kp.publicKey(), { quote: 10n ** 12n, approveQuote: 10n ** 12n });
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n));
      },
    ],
    [
      '#4 NotAllowedToBuy',
      4,
      () => {
        const kp = wallet(h, h.pair, { canBuy: false });
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n));
      },
    ],
    [
      '#5 NotAllowedToSell',
      5,
      () => {
        const kp = wallet(h, h.pair, { canSell: false });
        return simulationError(kp, 'new_sell_order', order(kp.publicKey(), 1000n, 123_400n));
      },
    ],
    [
      '#2004 InvalidInputOrderData: an 8-byte cross identifier',
      2004,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n, new Uint8Array(8)));
      },
    ],
    [
      '#1023 volume below the minimum size',
      1023,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 3n, 123_400n));
      },
    ],
    [
      '#1024 price not on tick',
      1024,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_401n));
      },
    ],
    [
      '#1018 price above the collar',
      1018,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 200_000n));
      },
    ],
    [
      '#1019 price below the collar',
      1019,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 50_000n));
      },
    ],
    [
      '#1022 value below minimumOrderValue',
      1022,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 5n, 123_400n));
      },
    ],
    [
      '#1020 value above maximumOrderValue',
      1020,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 50_000_000n, 123_400n));
      },
    ],
    [
      '#9 allowance too low',
      9,
      () => {
        const kp = wallet(h, h.pair);
        approve(h.emu, h.pair, 'quote', kp.publicKey(), h.pair.book.address, 0n, h.emu.latest.seq + 10);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n));
      },
    ],
    [
      '#10 balance too low for value plus commission',
      10,
      () => {
        const kp = wallet(h, h.pair, { quote: 123_400_000n });
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n));
      },
    ],
    [
      '#11 trustline deauthorized',
      11,
      () => {
        const kp = wallet(h, h.pair);
        setAuthorized(h.emu, h.pair, 'quote', kp.publicKey(), false);
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n));
      },
    ],
    [
      '#13 trustline missing',
      13,
      () => {
        const kp = walletWithoutQuoteTrustline();
        return simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n));
      },
    ],
    [
      '#8 cancelling an order id that does not rest',
      8,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'cancel_buy_order', [
          new Address(kp.publicKey()).toScVal(),
          nativeToScVal(999_999n, { type: 'u64' }),
        ]);
      },
    ],
    [
      "#7 NotAllowedToCancel: another wallet's order",
      7,
      async () => {
        const owner = wallet(h, h.pair);
        const other = wallet(h, h.pair);
        const placed = h.emu.control({
          source: owner.publicKey(),
          contract: h.pair.book.address,
          fn: 'new_buy_order',
          args: order(owner.publicKey(), 1000n, 123_400n).map((v) => v.toXdrObject()),
        });
        expect(placed.ok).toBe(true);
        const id = h.pair.book.book.buys.find((o) => o.wallet === owner.publicKey())?.id ?? 0n;
        return simulationError(other, 'cancel_buy_order', [
          new Address(other.publicKey()).toScVal(),
          nativeToScVal(id, { type: 'u64' }),
        ]);
      },
    ],
    [
      '#1001 book not open for trading',
      1001,
      async () => {
        const kp = wallet(h, h.pair);
        setPhase(h.emu, h.venue, h.pair, 'manualHalt');
        try {
          return await simulationError(kp, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n));
        } finally {
          setPhase(h.emu, h.venue, h.pair, 'open');
        }
      },
    ],
    [
      '#4001 Unauthorized: an operator method called by a participant',
      4001,
      () => {
        const kp = wallet(h, h.pair);
        return simulationError(kp, 'set_phase', [
          new Address(kp.publicKey()).toScVal(),
          nativeToScVal('ClosedForTrading', { type: 'symbol' }),
        ]);
      },
    ],
  ];

  for (const [name, code, run] of cases) {
    it(`${name}`, async () => {
      expect(await run()).toBe(code);
    });
  }
});

/** Simulated and sent while the call would succeed; `change` runs before the ledger closes. */
async function failsWith(kp: Keypair, change: () => void): Promise<number | null> {
  const tx = await h.server.prepareTransaction(
    await build(h, kp, h.pair.book.address, 'new_buy_order', order(kp.publicKey(), 1000n, 123_400n)),
  );
  tx.sign(kp);
  expect((await h.server.sendTransaction(tx)).status).toBe('PENDING');
  change();
  h.emu.closeLedger();
  return failedContractCode(await h.server.getTransaction(hashOf(tx)));
}

describe('contract errors of transactions that fail when applied', () => {
  it('#4 when the buy permission is withdrawn in between', async () => {
    const kp = wallet(h, h.pair);
    expect(
      await failsWith(kp, () =>
        setClient(h.emu, h.venue, kp.publicKey(), {
          id: 1n,
          canBuy: false,
          canSell: true,
          canCancel: true,
          canTransfer: true,
          isMarketMaker: false,
        }),
      ),
    ).toBe(4);
  });

  it('#9 when the approval is withdrawn in between', async () => {
    const kp = wallet(h, h.pair);
    expect(
      await failsWith(kp, () =>
        approve(h.emu, h.pair, 'quote', kp.publicKey(), h.pair.book.address, 0n, h.emu.latest.seq + 10),
      ),
    ).toBe(9);
  });

  it('#11 when the trustline is deauthorized in between', async () => {
    const kp = wallet(h, h.pair);
    expect(await failsWith(kp, () => setAuthorized(h.emu, h.pair, 'quote', kp.publicKey(), false))).toBe(11);
  });
});
