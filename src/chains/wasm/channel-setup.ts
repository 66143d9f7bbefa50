/**
 * Creating the channel accounts a trading account submits through: one classic transaction from a funding
 * account with a `createAccount` operation per channel (up to 100 per transaction), sent and followed to
 * its inclusion. The caller stores the new keys as secrets; they are returned, never logged.
 */
import { Account, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { DltError, isDltError } from '../../core/errors.ts';
import { createMetrics } from '../../telemetry/metrics.ts';
import { httpTransport, type RpcTransport } from './json-rpc.ts';
import { createWasmMetrics } from './metrics.ts';
import { systemClock, type Clock } from './options.ts';
import { WasmRpc } from './rpc-client.ts';
import { sendErrorName } from './tx-result.ts';

export interface ChannelSetup {
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  /** Pays the starting balances and the fee. */
  readonly funder: Keypair;
  /** How many channel accounts to create. */
  readonly count: number;
  /** Starting balance of each, whole XLM as a decimal string (default "10": fees for a long while). */
  readonly startingBalance?: string;
  readonly clock?: Clock;
  readonly transport?: RpcTransport;
  readonly timeoutSeconds?: number;
  readonly pollIntervalMs?: number;
  /** New keys; default random. */
  readonly newKey?: () => Keypair;
}

const MAX_OPS = 100;

export async function createChannelAccounts(
  s: ChannelSetup,
): Promise<{ readonly accounts: readonly Keypair[]; readonly txHashes: readonly string[] }> {
  if (!Number.isInteger(s.count) || s.count < 1)
    throw new DltError('E_USAGE', `channel account count must be a positive integer, got ${s.count}`);
  const clock = s.clock ?? systemClock;
  const sleep = (s.clock ?? systemClock).sleep;
  const rpc = new WasmRpc(
    s.transport ?? httpTransport(s.rpcUrl, { timeoutMs: 10_000 }),
    createWasmMetrics(createMetrics()),
  );
  const accounts = Array.from({ length: s.count }, () => s.newKey?.() ?? Keypair.random());
  const txHashes: string[] = [];
  for (let i = 0; i < accounts.length; i += MAX_OPS) {
    const batch = accounts.slice(i, i + MAX_OPS);
    const funder = await rpc.account(s.funder.publicKey());
    if (funder === null)
      throw new DltError('E_CHAIN_TX_REFUSED', `funding account ${s.funder.publicKey()} does not exist`);
    const maxTime = Math.floor(clock.now() / 1000) + (s.timeoutSeconds ?? 60);
    const builder = new TransactionBuilder(new Account(s.funder.publicKey(), funder.seqNum.toString()), {
      fee: String(100 * batch.length),
      networkPassphrase: s.networkPassphrase,
    });
    for (const kp of batch)
      builder.addOperation(
        Operation.createAccount({ destination: kp.publicKey(), startingBalance: s.startingBalance ?? '10' }),
      );
    const tx = builder.setTimebounds(0, maxTime).build();
    tx.sign(s.funder);
    const hash = Buffer.from(tx.hash()).toString('hex');
    const sent = await rpc.send(tx.toXDR());
    if (sent.status === 'ERROR' || sent.status === 'TRY_AGAIN_LATER') {
      throw new DltError(
        'E_CHAIN_TX_REFUSED',
        `channel account creation refused: ${sent.status === 'ERROR' ? sendErrorName(sent.errorResultXdr) : 'TRY_AGAIN_LATER'}`,
        { details: { txHash: hash } },
      );
    }
    for (;;) {
      let reply;
      try {
        reply = await rpc.transaction(hash);
      } catch (e) {
        if (!isDltError(e, 'E_CHAIN_RPC')) throw e;
        reply = null;
      }
      if (reply?.status === 'SUCCESS') break;
      if (reply?.status === 'FAILED')
        throw new DltError(
          'E_CHAIN_TX_REFUSED',
          'channel account creation failed on chain (funding balance, or an account already exists)',
          { details: { txHash: hash } },
        );
      if (reply !== null && reply.latestLedgerCloseTime !== null && reply.latestLedgerCloseTime > BigInt(maxTime)) {
        throw new DltError('E_CHAIN_TX_EXPIRED', 'channel account creation expired without inclusion', {
          details: { txHash: hash },
        });
      }
      await sleep(s.pollIntervalMs ?? 1000);
    }
    txHashes.push(hash);
  }
  return { accounts, txHashes };
}
