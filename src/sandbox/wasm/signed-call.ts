/**
 * A contract call sent by one of the sandbox's own accounts as a real transaction, inside the process: built
 * and signed with `@stellar/stellar-sdk` as any client would, simulated by the emulator's own simulation
 * (authorization recorded, footprint and resource fee), assembled, signed, queued, and followed to the close
 * of its ledger. Unlike the operator's control calls, it goes through sequence numbers, fees, time bounds,
 * signatures and `require_auth` like every participant's transaction.
 */
import { Account, Contract, rpc, TransactionBuilder, xdr, type Keypair } from '@stellar/stellar-sdk';
import { DltError } from '../../core/errors.ts';
import type { AppliedTx } from './apply.ts';
import type { WasmEmulator } from './emulator.ts';
import type { ScVal } from './scval.ts';
import { simulate } from './simulate.ts';

export interface SignedCallOptions {
  /** Upper time bound of the transaction, seconds from now on the emulator's clock; default 60. */
  readonly validForSeconds?: number;
  /** Give up waiting for its ledger after this many wall milliseconds; default 120000. */
  readonly timeoutMs?: number;
}

function failure(message: string, details: Record<string, unknown>): DltError {
  return new DltError('E_SANDBOX', message, { details: { part: 'wasm-signed-call', ...details } });
}

/** Sends the call and resolves with the applied transaction once its ledger closed (success or not). */
export function signedCall(
  emu: WasmEmulator,
  signer: Keypair,
  contract: string,
  fn: string,
  args: readonly ScVal[],
  options: SignedCallOptions = {},
): Promise<AppliedTx> {
  let envelope: string;
  try {
    envelope = prepare(emu, signer, contract, fn, args, options.validForSeconds ?? 60);
  } catch (e) {
    return Promise.reject(e);
  }
  return follow(emu, envelope, fn, options.timeoutMs ?? 120_000);
}

/** Built, simulated, assembled and signed: the envelope, base64. */
function prepare(
  emu: WasmEmulator,
  signer: Keypair,
  contract: string,
  fn: string,
  args: readonly ScVal[],
  validForSeconds: number,
): string {
  const source = emu.world.accounts.get(signer.publicKey());
  if (source === undefined) throw failure(`account ${signer.publicKey()} does not exist`, { fn });
  const tx = new TransactionBuilder(new Account(signer.publicKey(), source.seqNum.toString()), {
    fee: '100',
    networkPassphrase: emu.passphrase,
  })
    .addOperation(new Contract(contract).call(fn, ...args.map((a) => xdr.ScVal.fromXdrObject(a))))
    .setTimebounds(0, Number(emu.nowSeconds()) + validForSeconds)
    .build();
  const envelope = xdr.TransactionEnvelope.schema.decode(Buffer.from(tx.toXDR(), 'base64'));
  if (envelope.type !== 2) throw failure('the SDK built no v1 envelope', { fn });
  const sim = simulate({
    world: emu.world,
    tx: envelope.v1.tx,
    ledgerSeq: emu.latest.seq + 1,
    closeTime: emu.nextCloseTime(),
    latestLedger: emu.latest.seq,
    authMode: undefined,
    authV2: false,
    randomNonce: emu.randomNonce,
  });
  if (typeof sim.error === 'string')
    throw failure(`${fn} fails in simulation: ${sim.error.split('\n')[0]}`, { fn, error: sim.error });
  const prepared = rpc.assembleTransaction(tx, sim as unknown as rpc.Api.RawSimulateTransactionResponse).build();
  prepared.sign(signer);
  return prepared.toXDR();
}

/** Queues the envelope and waits for the ledger that applies it (or drops it as expired). */
function follow(emu: WasmEmulator, envelope: string, fn: string, timeoutMs: number): Promise<AppliedTx> {
  return new Promise((resolve, reject) => {
    let hash = '';
    const done = (settle: () => void) => {
      off();
      clearTimeout(timer);
      settle();
    };
    const timer = setTimeout(
      () => done(() => reject(failure(`${fn}: no ledger closed with transaction ${hash} in time`, { fn, hash }))),
      timeoutMs,
    );
    timer.unref();
    const off = emu.onLedgerClosed((closed) => {
      const applied = closed.transactions.find((t) => t.hash === hash);
      if (applied !== undefined) done(() => resolve(applied));
      else if (closed.dropped.includes(hash))
        done(() => reject(failure(`${fn}: transaction ${hash} expired unapplied`, { fn, hash })));
    });
    const sent = emu.submit(envelope);
    hash = sent.hash;
    if (sent.status !== 'PENDING')
      done(() =>
        reject(
          failure(`${fn}: the emulator answered ${sent.status} to transaction ${hash}`, {
            fn,
            hash,
            status: sent.status,
          }),
        ),
      );
  });
}
