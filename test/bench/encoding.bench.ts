/** Order encoding: the core's hand-written chain A encoder against ethers' generic ABI coder, same inputs. */
import { AbiCoder } from 'ethers';
import { Decimal } from '../../src/core/decimal.ts';
import { encodeOrder } from '../../src/core/encoding/order-codec.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../src/core/order-terms.ts';
import { compare, fmt, type Row } from './harness.ts';

export const title = 'order encoding';

export function run(): Row[] {
  const scales = { baseInternal: 10_000n, quoteInternal: 10_000n, baseNative: 10n ** 8n, quoteNative: 10n ** 6n };
  const abi = AbiCoder.defaultAbiCoder();
  const terms = {
    ...DEFAULT_ORDER_OPTIONS,
    side: 'buy' as const,
    quantity: new Decimal('1.5'),
    price: new Decimal('101.2'),
  };
  const [ours, ethers, wasm] = compare([
    { name: 'core evm', fn: () => encodeOrder('evm', terms, scales, 42n) },
    {
      name: 'ethers AbiCoder',
      fn: () => [
        abi.encode(['uint64', 'uint64'], [15_000n, 1_012_000n]),
        abi.encode(['uint32', 'uint32'], [0, 0]),
        abi.encode(['uint32'], [42]),
      ],
    },
    { name: 'core wasm', fn: () => encodeOrder('wasm', { ...terms, condition: 'ioc' }, scales, 42n) },
  ]) as [ReturnType<typeof compare>[0], ReturnType<typeof compare>[0], ReturnType<typeof compare>[0]];
  return [
    {
      benchmark: title,
      measure: 'chain A order (human terms -> 3 byte arrays), ops/s',
      value: fmt(ours.opsPerSecond),
      baseline: `${fmt(ethers.opsPerSecond)} (ethers AbiCoder, pre-scaled ints)`,
      ratio: `${fmt(ours.opsPerSecond / ethers.opsPerSecond, 2)}x`,
    },
    { benchmark: title, measure: 'chain B order (4 words), ops/s', value: fmt(wasm.opsPerSecond) },
  ];
}
