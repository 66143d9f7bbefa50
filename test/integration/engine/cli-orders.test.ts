import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelAllCommand } from '../../../src/cli/commands/cancel-all.ts';
import { inventoryCommand, type InventoryLine } from '../../../src/cli/commands/inventory.ts';
import { ordersCommand, type OrderRow } from '../../../src/cli/commands/orders.ts';
import type { CliIo } from '../../../src/cli/io.ts';
import { commandParts } from '../../../src/cli/bootstrap/command.ts';
import type { PairBinding } from '../../../src/chains/types.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { minimumValueWithMargin } from '../../../src/core/rules.ts';
import { snapToTick } from '../../../src/core/ticks.ts';
import { rpc } from '../../../src/sandbox/evm/node.ts';
import { mergeSettings } from '../../../src/sandbox/venue/options.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../src/sandbox/venue/start.ts';
import { silentLogger } from '../../../src/telemetry/logger.ts';
import { Metrics } from '../../../src/telemetry/metrics.ts';
import { FAST_SANDBOX, Traders, until } from '../../support/sandbox/api/sandbox-clients.ts';

let sandbox: Sandbox;
let dir: string;
let configPath: string;

function io(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readFile: (p) => readFileSync(p, 'utf8'),
    writeFile: () => {},
    env: {},
    cwd: dir,
  };
}

/** A buy and a sell a few ticks around the reference price, comfortably above the minimum order value. */
function quotes(p: PairBinding): Array<{ side: 'buy' | 'sell'; quantity: Decimal; price: Decimal }> {
  const r = p.rules;
  const ref = r.staticReferencePrice as Decimal;
  const out = (['buy', 'sell'] as const).map((side) => {
    const price = snapToTick(ref.mul(side === 'buy' ? '0.99' : '1.01'), side, r.tick);
    const k = minimumValueWithMargin(r).mul('1.5').div(price).sub(r.minimumSize).div(r.sizeIncrement).ceil();
    return { side, quantity: r.minimumSize.add(Decimal.max(k, 0).mul(r.sizeIncrement)), price };
  });
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-cli-orders-'));
  sandbox = await startSandbox(
    mergeSettings(FAST_SANDBOX, {
      manifest: join(dir, 'manifest.json'),
      wasm: { ledgerIntervalMs: 500 },
    }) as SandboxOptions,
  );
  configPath = join(dir, 'bot.yaml');
  writeFileSync(
    configPath,
    'sandbox:\n  manifest: manifest.json\nstore:\n  path: state.sqlite\ncalendar:\n  enabled: false\n',
  );
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('dlt-mm orders and dlt-mm cancel-all against the sandbox, both chains', () => {
  it(
    'lists the store beside the venue with differences marked, then cancels every resting order and waits for the end',
    { timeout: 120_000 },
    async () => {
      const w = await commandParts(configPath, io(), { trade: true, logger: silentLogger(), metrics: new Metrics() });
      const placed: bigint[] = [];
      for (const wallet of w.wallets) {
        expect((await wallet.engine?.start())?.ready).toBe(true);
        const pair = wallet.pairs[0] as PairBinding;
        for (const q of quotes(pair)) {
          const p = await wallet.engine?.place({ pairId: pair.pairId, ...q });
          expect((await p?.settled)?.status).toBe('resting');
          placed.push(p?.clientOrderId as bigint);
        }
      }
      const evmWallet = w.wallets.find((x) => x.chain === 'evm');
      const evmPair = evmWallet?.pairs[0] as PairBinding;
      await w.close();
      // An order of the chain A wallet that is not ours: placed by another program with cross identifier 0.
      const traders = new Traders(sandbox);
      const mm = sandbox.manifest.wallets.find((x) => x.chain === 'evm' && x.marketMaker)?.name as string;
      await traders.evmApproveAll(mm);
      const foreign = await traders.evmOrder(mm, evmPair.symbol, 'buy', '1', '95');
      traders.close();
      await sandbox.sync();

      const listed = await until(
        async () => {
          const o = io();
          expect(await ordersCommand(['--config', configPath, '--json'], o)).toBe(0);
          return JSON.parse(o.out.join('')) as OrderRow[];
        },
        (rows) => rows.length === placed.length + 1 && rows.every((r) => r.venueRemaining !== null),
        'the venue list to show every order',
      );
      expect(
        listed
          .filter((r) => r.clientOrderId !== null)
          .map((r) => [BigInt(r.clientOrderId as string), r.storeStatus, r.difference]),
      ).toEqual(placed.map((c) => [c, 'resting', '']));
      expect(listed.filter((r) => r.clientOrderId === null)).toMatchObject([
        { orderId: foreign.orderId.toString(), storeStatus: null, difference: 'not in the store' },
      ]);

      const c = io();
      expect(await cancelAllCommand(['--config', configPath, '--json', '--timeout', '60'], c)).toBe(0);
      const done = JSON.parse(c.out.join('')) as {
        orders: Array<{ clientOrderId: string | null; result: string }>;
        open: number;
      };
      expect(done.open).toBe(0);
      expect(done.orders.filter((o) => o.clientOrderId !== null).map((o) => o.result)).toEqual(
        placed.map(() => 'cancelled'),
      );
      expect(done.orders.filter((o) => o.clientOrderId === null).map((o) => o.result)).toEqual([
        'cancelled (not ours)',
      ]);

      await sandbox.sync();
      const after = await until(
        async () => {
          const o = io();
          await ordersCommand(['--config', configPath], o);
          return o.out.join('');
        },
        (text) => text.startsWith('no live orders'),
        'the venue list to empty',
      );
      expect(after).toBe('no live orders in the store or at the venue\n');
    },
  );

  it(
    'dlt-mm inventory shows a deposit as a difference with its alert; rebaseline accepts it and the alert is resolved',
    { timeout: 120_000 },
    async () => {
      const evmMm = sandbox.manifest.wallets.find((x) => x.chain === 'evm' && x.marketMaker);
      const pair = sandbox.manifest.pairs.find((p) => p.chain === 'evm');
      const quote = pair?.quoteToken.hex as string;
      const traders = new Traders(sandbox);
      try {
        await traders.evmTransfer('evm-trader', quote, evmMm?.address as string, 2_500_000n);
      } finally {
        traders.close();
      }
      // The deposit counts once it is confirmed (one block on top in the sandbox): before that the confirmation
      // depth still explains it, and the inventory is compared at the height the bot has confirmed.
      const head = async () => Number(await rpc(sandbox.evmNode.rpcUrl, 'eth_blockNumber', []));
      const deposited = await head();
      await until(head, (h) => h > deposited, 'a block on top of the deposit');
      const show = async () => {
        const o = io();
        const code = await inventoryCommand(['--config', configPath, '--json'], o);
        return { code, tokens: (JSON.parse(o.out.join('')) as { tokens: InventoryLine[] }).tokens };
      };
      const before = await show();
      expect(before.code).toBe(0);
      const deposit = before.tokens.filter((t) => t.difference !== '0');
      expect(
        deposit.map((t) => ({ token: t.token.toLowerCase(), openAlerts: t.openAlerts > 0, decided: t.decided })),
      ).toEqual([{ token: quote.toLowerCase(), openAlerts: true, decided: true }]);
      expect(new Decimal(deposit[0]?.difference as string).gt(0)).toBe(true);

      await expect(inventoryCommand(['rebaseline', '--config', configPath], io())).rejects.toMatchObject({
        code: 'E_USAGE',
        message: expect.stringContaining('--note'),
      });

      const r = io();
      expect(
        await inventoryCommand(
          ['rebaseline', '--config', configPath, '--note', 'deposit from the treasury', '--json'],
          r,
        ),
      ).toBe(0);
      const rebased = (JSON.parse(r.out.join('')) as { tokens: InventoryLine[] }).tokens.filter(
        (t) => t.action === 're-based',
      );
      expect(rebased.map((t) => [t.token.toLowerCase(), t.difference])).toEqual([
        [quote.toLowerCase(), deposit[0]?.difference],
      ]);

      const after = await show();
      expect(after.tokens.filter((t) => t.difference !== '0' || t.openAlerts > 0)).toEqual([]);
    },
  );
});
