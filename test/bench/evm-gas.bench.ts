/**
 * Gas of the chain A sandbox order book on a real node: a resting placement, an incoming order matching one and
 * ten resting orders (ten different makers, ten price levels), and a cancel. Each case runs from the same
 * deployed state (evm_snapshot / evm_revert); figures are the receipts' gasUsed, which do not depend on the
 * machine.
 */
import { pairWith } from '../support/pairs.ts';
import { Harness } from '../support/sandbox/evm/harness.ts';
import { loadArtifacts } from '../../src/sandbox/evm/compile.ts';
import { fmt, type Row } from './harness.ts';

export const title = 'chain A order book gas';

const HALF = 5_000n;
const ONE = 10_000n;
const FUNDED = {
  balances: { BOND26: '1000', EURe: '1000000' },
  allowances: { BOND26: 'unlimited', EURe: 'unlimited' },
};
const none = async () => undefined;
const MAKERS = Array.from({ length: 10 }, (_, i) => `maker${i}`);

export async function run(): Promise<Row[]> {
  const h = await Harness.start(pairWith('evm-pair'), {}, [
    ...MAKERS.map((name) => ({ name, ...FUNDED })),
    { name: 'taker', ...FUNDED },
  ]);
  const rows: Row[] = [];
  /** Runs one case from the deployed state; `traded` is the quantity the case must execute (0: none). */
  const measure = async (
    label: string,
    setup: () => Promise<unknown>,
    act: () => ReturnType<Harness['place']>,
    traded = 0n,
  ) => {
    await h.save();
    try {
      await setup();
      const { receipt, events } = await act();
      const executed = events.find((e) => e.name.endsWith('InitiatedTrade'))?.args.quantity ?? 0n;
      if (executed !== traded) throw new Error(`${label}: executed ${String(executed)}, expected ${traded}`);
      rows.push({ benchmark: title, measure: `${label}, gas`, value: fmt(Number(receipt.gasUsed)) });
    } finally {
      await h.restore();
    }
  };
  try {
    await measure('rest a sell at a new price level', none, () => h.place('maker0', 'sell', ONE, 1_010_000n));
    await measure('rest a buy at a new price level', none, () => h.place('maker0', 'buy', ONE, 990_000n));
    await measure(
      'rest a sell behind another at its level',
      () => h.place('maker1', 'sell', ONE, 1_010_000n),
      () => h.place('maker0', 'sell', ONE, 1_010_000n),
    );
    await measure(
      'buy matching 1 resting sell in full',
      () => h.place('maker0', 'sell', ONE, 1_010_000n),
      () => h.place('taker', 'buy', ONE, 1_010_000n),
      ONE,
    );
    await measure(
      'sell matching 1 resting buy in full',
      () => h.place('maker0', 'buy', ONE, 990_000n),
      () => h.place('taker', 'sell', ONE, 990_000n),
      ONE,
    );
    const tenSells = async () => {
      for (const [i, m] of MAKERS.entries()) await h.place(m, 'sell', HALF, 1_000_000n + BigInt(i) * 1_000n);
    };
    await measure(
      'buy matching 10 resting sells (10 makers, 10 levels)',
      tenSells,
      () => h.place('taker', 'buy', 10n * HALF, 1_010_000n),
      10n * HALF,
    );
    const tenBuys = async () => {
      for (const [i, m] of MAKERS.entries()) await h.place(m, 'buy', HALF, 1_000_000n - BigInt(i) * 500n);
    };
    await measure(
      'sell matching 10 resting buys (10 makers, 10 levels)',
      tenBuys,
      () => h.place('taker', 'sell', 10n * HALF, 995_500n),
      10n * HALF,
    );
    await measure(
      'cancel a resting sell',
      () => h.place('maker0', 'sell', ONE, 1_010_000n),
      () => h.cancel('maker0', 'sell', 1n),
    );
    await measure(
      'cancel a resting buy',
      () => h.place('maker0', 'buy', ONE, 990_000n),
      () => h.cancel('maker0', 'buy', 1n),
    );
    rows.push({
      benchmark: title,
      measure: 'OrderBook runtime code, bytes (limit 24,576)',
      value: fmt(loadArtifacts().contracts.OrderBook.deployedSize),
    });
    return rows;
  } finally {
    await h.stop();
  }
}
