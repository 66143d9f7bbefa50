/**
 * The bot's fair value on the sandbox: `dlt-mm run` as a child process quoting every pair around the median of
 * its price feed and its oracle, while the test breaks them through the sandbox's control API (feed down, feed
 * stale, oracle frozen, oracle jump and the dispersion it makes) and moves the hidden value (a jump). Each
 * fault must give its guard's action within one block or ledger of when the bot could know it, logged once,
 * and quoting must resume when it clears. The oracle answers the bot reports are the ones ethers (Chainlink's
 * ABI) and stellar-sdk (SEP-40) read.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Account, Address, Contract, rpc, scValToNative, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { Contract as EvmContract, JsonRpcProvider } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { AGGREGATOR_V3_ABI } from '../../src/chains/evm/price-oracle.ts';
import { main } from '../../src/cli/main.ts';
import { until } from '../support/e2e/poll.ts';
import { sandboxSession, type SessionBot } from '../support/e2e/session.ts';

const BLOCK_MS = 2_000;
const LEDGER_MS = 2_000;
const FEED_MAX_AGE_MS = 3_000;
const ORACLE_MAX_AGE_MS = 8_000;
const COOL_DOWN_MS = 6_000;

const session = sandboxSession(
  'fair-e2e',
  {
    evm: { blockTimeMs: BLOCK_MS },
    wasm: { ledgerIntervalMs: LEDGER_MS },
    flow: { enabled: true, informedShare: 0, takerIntervalMs: 20_000 },
    feeds: { delayMs: 200, noiseBps: 1 },
    oracles: { heartbeatMs: 2_000, pollMs: 500, resolutionSeconds: 1 },
  },
  { chains: { begin: false }, endSignal: 'SIGTERM' },
);
let bot: SessionBot;

interface LogLine {
  readonly time: string;
  readonly msg: string;
  readonly pair?: string;
  readonly reason?: string;
}

const logLines = (): LogLine[] =>
  readFileSync(bot.log, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/** The bot's log lines of `pairId` whose message starts with `text`. */
const said = (pairId: string, text: string) => logLines().filter((l) => l.pair === pairId && l.msg.startsWith(text));

/** Waits for the first such line after `sinceMs` and gives its time. */
async function firstSaid(pairId: string, text: string, sinceMs: number): Promise<number> {
  return until(`"${text}" for ${pairId}`, 30_000, () => {
    const l = said(pairId, text).find((x) => Date.parse(x.time) >= sinceMs);
    return l === undefined ? undefined : Date.parse(l.time);
  });
}

const post = async (path: string, body?: unknown, method = 'POST') => {
  const res = await fetch(`${session.sandbox.manifest.venue.controlUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
};

const pairOf = (symbol: string) => {
  const p = session.sandbox.manifest.pairs.find((x) => x.symbol === symbol);
  const oracle = p?.fairValue.oracle;
  const feedUrl = p?.fairValue.feedUrl;
  if (p === undefined || oracle === undefined || feedUrl === undefined)
    throw new Error(`no pair ${symbol} with a feed and an oracle`);
  return { id: p.id, symbol: p.symbol, oracle, feedUrl };
};

interface Report {
  readonly pair: string;
  readonly fair: string | null;
  readonly source: string | null;
  readonly guards: Record<string, string>;
  readonly sources: ReadonlyArray<{ kind: string; value: string | null; usable: boolean }>;
}

const reports = async (): Promise<Report[]> =>
  ((await (await fetch(`http://127.0.0.1:${bot.port}/fair-value`)).json()) as { pairs: Report[] }).pairs;

const quoting = async (pairId: string) => (await session.chains.resting(pairId)).length > 0;

beforeAll(async () => {
  const strategy = join(session.dir, 'fair.yaml');
  writeFileSync(
    strategy,
    [
      'kind: ladder',
      'referencePrice: [fair, mid]',
      'ladder: {levels: 1, bidSpreadBps: 40, askSpreadBps: 40, spacingBps: 10, sizeUnit: quote, sizes: ["100"]}',
      'fairValue:',
      '  combine: median',
      '  maxDispersionBps: 60',
      '  sources:',
      `    - {kind: feed, pollMs: 250, maxAgeMs: ${FEED_MAX_AGE_MS}}`,
      `    - {kind: oracle, pollMs: 250, maxAgeMs: ${ORACLE_MAX_AGE_MS}}`,
      `  guards: {jump: {thresholdBps: 150, windowMs: 5000, coolDownMs: ${COOL_DOWN_MS}}}`,
    ].join('\n'),
  );
  bot = await session.startBot('bot', { strategy, risk: { staleMarketDataMs: 15_000 } });
  await until('bot ready and quoting every pair', 120_000, async () => {
    if (!bot.running) throw new Error(`the bot exited:\n${bot.tail()}`);
    if (!(await bot.readiness()).ready) return false;
    for (const p of session.sandbox.manifest.pairs) if (!(await quoting(p.id))) return false;
    return true;
  });
}, 180_000);

/**
 * A source's outage: `inject` breaks it and says when its last value passes its maximum age; the bot must say
 * so within `slackMs` of that moment (a block or a ledger), once, keep quoting on the other source, and say it
 * is usable again once `clear` has mended it; returns the pair's verdict after that.
 */
async function outage(
  p: ReturnType<typeof pairOf>,
  kind: 'feed' | 'oracle',
  inject: () => Promise<number>,
  clear: () => Promise<void>,
  slackMs: number,
) {
  const since = Date.now();
  const due = await inject();
  const at = await firstSaid(p.id, `fair-value source ${kind} unusable`, since);
  expect(at - due).toBeLessThanOrEqual(slackMs);
  const r = (await reports()).find((x) => x.pair === p.id);
  expect({ usable: r?.sources.find((x) => x.kind === kind)?.usable, fair: r?.fair !== null }).toEqual({
    usable: false,
    fair: true,
  });
  expect(await quoting(p.id)).toBe(true);
  await clear();
  await firstSaid(p.id, `fair-value source ${kind} usable again`, since);
  expect(said(p.id, `fair-value source ${kind} unusable`).filter((l) => Date.parse(l.time) >= since)).toHaveLength(1);
  return (await reports()).find((x) => x.pair === p.id);
}

describe('the fair value on the sandbox', () => {
  it("reports the oracle answers that ethers and stellar-sdk read from the manifest's oracles", async () => {
    // Resolves once an update sent just before it has landed.
    await session.sandbox.oracles.freeze();
    try {
      const evm = pairOf('BOND26EURe');
      const provider = new JsonRpcProvider(session.sandbox.manifest.chains.evm.rpcUrl, undefined, {
        staticNetwork: true,
      });
      const aggregator = new EvmContract(evm.oracle.address, [...AGGREGATOR_V3_ABI], provider);
      const round = (await aggregator.getFunction('latestRoundData')()) as [bigint, bigint];
      const decimals = Number(await aggregator.getFunction('decimals')());
      const evmAnswer = new Decimal(round[1].toString()).div(new Decimal(10).pow(decimals));
      provider.destroy();

      const wasm = pairOf('FUND1EURe');
      const server = new rpc.Server(session.sandbox.manifest.chains.wasm.rpcUrl, { allowHttp: true });
      const call = async (fn: string, ...args: xdr.ScVal[]) => {
        const tx = new TransactionBuilder(
          new Account(session.sandbox.manifest.wallets.find((w) => w.chain === 'wasm')!.address, '0'),
          {
            fee: '100',
            networkPassphrase: session.sandbox.manifest.chains.wasm.networkPassphrase,
          },
        )
          .addOperation(new Contract(wasm.oracle.address).call(fn, ...args))
          .setTimeout(0)
          .build();
        const sim = await server.simulateTransaction(tx);
        if (!rpc.Api.isSimulationSuccess(sim) || sim.result === undefined) throw new Error(`${fn} failed`);
        return scValToNative(sim.result.retval) as unknown;
      };
      const asset = xdr.ScVal.scvVec([
        xdr.ScVal.scvSymbol('Stellar'),
        new Address(wasm.oracle.asset as string).toScVal(),
      ]);
      const last = (await call('lastprice', asset)) as { price: bigint };
      const wasmDecimals = Number(await call('decimals'));
      const wasmAnswer = new Decimal(last.price.toString()).div(new Decimal(10).pow(wasmDecimals));

      const oracleOf = (r: Report[], id: string) =>
        r.find((x) => x.pair === id)?.sources.find((s) => s.kind === 'oracle');
      const seen = await until('the bot reports the frozen answers', 10_000, async () => {
        const r = await reports();
        const a = oracleOf(r, evm.id)?.value;
        const b = oracleOf(r, wasm.id)?.value;
        return a === evmAnswer.toFixed() && b === wasmAnswer.toFixed() ? { a, b } : undefined;
      });
      expect(seen).toEqual({ a: evmAnswer.toFixed(), b: wasmAnswer.toFixed() });
      // dlt-mm fair-value reads them itself while the bot runs, and shows the bot's verdicts beside its own.
      let out = '';
      const code = await main(['fair-value', '--config', bot.config, '--json'], {
        stdout: (t) => (out += t),
        stderr: () => undefined,
        readFile: (path) => readFileSync(path, 'utf8'),
        writeFile: () => undefined,
        env: {},
        cwd: session.dir,
      });
      expect(code).toBe(0);
      const lines = (JSON.parse(out) as { pairs: Array<{ now: Report; bot: Report | null }> }).pairs;
      expect({
        a: oracleOf(
          lines.map((l) => l.now),
          evm.id,
        )?.value,
        b: oracleOf(
          lines.map((l) => l.now),
          wasm.id,
        )?.value,
        bots: lines.filter((l) => l.bot !== null).length,
      }).toEqual({ a: evmAnswer.toFixed(), b: wasmAnswer.toFixed(), bots: session.sandbox.manifest.pairs.length });
    } finally {
      session.sandbox.oracles.unfreeze();
    }
  });

  for (const mode of ['down', 'stale'] as const) {
    it(`a feed ${mode}: the feed stops counting once its value passes its maximum age, logged once; it counts again when it clears`, async () => {
      const p = pairOf('BOND26EURe');
      await outage(
        p,
        'feed',
        async () => {
          const before = (await (await fetch(p.feedUrl)).json()) as { timestamp: number };
          await post('/faults/feed', { mode, pair: p.symbol });
          // The last value the bot could read is at most the one served before; it passes its age this much later.
          return before.timestamp + FEED_MAX_AGE_MS;
        },
        () => post('/faults/feed', undefined, 'DELETE'),
        BLOCK_MS,
      );
      expect((await reports()).find((x) => x.pair === p.id)?.source).toBe('median');
    });
  }

  it('an oracle frozen: it stops counting once its answer passes its maximum age, logged once; it counts again when it clears', async () => {
    const p = pairOf('FUND1EURe');
    const after = await outage(
      p,
      'oracle',
      async () => {
        await post('/faults/oracle', { mode: 'freeze', pair: p.symbol });
        const frozen = session.sandbox.oracles.state().find((s) => s.id === p.id);
        return (frozen?.answerAtMs ?? Date.now()) + ORACLE_MAX_AGE_MS;
      },
      () => post('/faults/oracle', undefined, 'DELETE'),
      LEDGER_MS,
    );
    expect(after?.sources.find((x) => x.kind === 'oracle')?.usable).toBe(true);
  });

  it('an oracle jump makes the sources disagree: every quote of the pair is cancelled in the block after the jump, logged once; quoting resumes when the oracle is right again', async () => {
    const p = pairOf('BOND26EURe');
    const since = Date.now();
    // Frozen first, so that the operator does not correct the jump at its next look.
    await post('/faults/oracle', { mode: 'freeze', pair: p.symbol });
    const head = await session.chains.head('evm');
    await post('/faults/oracle', { mode: 'jump', bps: 400, pair: p.symbol });
    await firstSaid(p.id, 'fair-value guard dispersion started', since);
    const jumped = session.sandbox.oracles.state().find((s) => s.id === p.id)?.answer;
    const provider = new JsonRpcProvider(session.sandbox.manifest.chains.evm.rpcUrl, undefined, {
      staticNetwork: true,
    });
    const aggregator = new EvmContract(p.oracle.address, [...AGGREGATOR_V3_ABI], provider);
    const answerAt = async (blockTag: number) =>
      ((await aggregator.getFunction('latestRoundData')({ blockTag })) as [bigint, bigint])[1];
    // The block the jump is in. What rested then is gone in the next block; a placement still in flight then
    // is cancelled in the block after the one it lands in.
    await session.chains.pass({ evm: 2, wasm: 0 });
    let block = head + 1;
    while ((await answerAt(block)) !== jumped) block += 1;
    await until('two blocks after the jump', 30_000, async () => (await session.chains.head('evm')) > block + 1);
    provider.destroy();
    const restedAtJump = (await session.chains.resting(p.id, block)).map((o) => o.orderId);
    const left = (await session.chains.resting(p.id, block + 1)).filter((o) => restedAtJump.includes(o.orderId));
    expect({ after: block + 1, left }).toEqual({ after: block + 1, left: [] });
    expect(await session.chains.resting(p.id, block + 2)).toEqual([]);
    await post('/faults/oracle', undefined, 'DELETE');
    await firstSaid(p.id, 'fair-value guard dispersion ended', since);
    await until('quoting again', 30_000, () => quoting(p.id));
    expect(said(p.id, 'fair-value guard dispersion started').filter((l) => Date.parse(l.time) >= since)).toHaveLength(
      1,
    );
  });

  it("the value itself jumps: the pair's quotes are gone in the next ledger, it pauses for the cool-down, logged once, and quotes again after it", async () => {
    const p = pairOf('GRN27EURe');
    await until('quoting before the jump', 30_000, () => quoting(p.id));
    const since = Date.now();
    session.sandbox.values.shock(p.id, 300);
    // The feed shows the move first (its sources then disagree), the oracle next: either pulls the quotes.
    await firstSaid(p.id, 'pair paused: fair-value', since);
    const rested = (await session.chains.resting(p.id)).map((o) => o.orderId);
    // What rested at the pause is gone in the next ledger; a placement still in flight then is cancelled in the
    // ledger after the one it lands in.
    await session.chains.pass({ evm: 0, wasm: 1 });
    expect((await session.chains.resting(p.id)).filter((o) => rested.includes(o.orderId))).toEqual([]);
    await session.chains.pass({ evm: 0, wasm: 1 });
    expect(await session.chains.resting(p.id)).toEqual([]);
    const started = await firstSaid(p.id, 'fair-value guard jump started', since);
    const ended = await firstSaid(p.id, 'fair-value guard jump ended', since);
    expect(ended - started).toBeGreaterThanOrEqual(COOL_DOWN_MS);
    await until('quoting again', 30_000, () => quoting(p.id));
    expect(said(p.id, 'fair-value guard jump started').filter((l) => Date.parse(l.time) >= since)).toHaveLength(1);
  });
});
