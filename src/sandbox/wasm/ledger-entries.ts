/**
 * Ledger entries as getLedgerEntries serves them: accounts (balance, sequence number), trustlines of the
 * venue's assets, contract instances and the contract data the contracts keep (asset balances of contracts,
 * allowances, registry records). Everything else is simply not found, as an absent entry is on the network.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { TokenContract } from './contracts/token.ts';
import { bytesEqual } from './crypto.ts';
import type { AccountState, World } from './host.ts';
import { fromScAddress } from './scval.ts';

const INT64_MAX = (1n << 63n) - 1n;
/** Entries the emulator keeps live for as long as it runs; reported with this many ledgers of TTL left. */
const LIVE_FOR = 3_110_400;

export interface FoundEntry {
  readonly data: xdr.LedgerEntryDataWire;
  readonly lastModified: number;
  readonly liveUntil?: number;
}

export function accountEntryData(a: AccountState): xdr.LedgerEntryDataWire {
  return {
    type: 0,
    account: {
      accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(a.id) },
      balance: a.balance,
      seqNum: a.seqNum,
      numSubEntries: 0,
      inflationDest: null,
      flags: 0,
      homeDomain: new xdr.XdrString(''),
      thresholds: new Uint8Array([1, 0, 0, 0]),
      signers: [],
      ext: { v: 0 },
    },
  };
}

export function accountEntry(a: AccountState): xdr.LedgerEntryWire {
  return { lastModifiedLedgerSeq: a.lastModified, data: accountEntryData(a), ext: { v: 0 } };
}

function tokens(world: World): TokenContract[] {
  return [...world.contracts.values()].filter((c): c is TokenContract => c instanceof TokenContract);
}

export function findEntry(world: World, key: xdr.LedgerKeyWire, ledgerSeq: number): FoundEntry | undefined {
  switch (key.type) {
    case 0: {
      const a = world.accounts.get(StrKey.encodeEd25519PublicKey(key.account.accountId.ed25519));
      return a === undefined ? undefined : { data: accountEntryData(a), lastModified: a.lastModified };
    }
    case 1: {
      const account = StrKey.encodeEd25519PublicKey(key.trustLine.accountId.ed25519);
      const want = xdr.TrustLineAsset.schema.encode(key.trustLine.asset);
      const token = tokens(world).find((t) => bytesEqual(xdr.TrustLineAsset.schema.encode(t.trustLineAsset()), want));
      const h = token?.holdings.get(account);
      if (token === undefined || h === undefined) return undefined;
      return {
        data: {
          type: 1,
          trustLine: {
            accountId: key.trustLine.accountId,
            asset: key.trustLine.asset,
            balance: h.amount,
            limit: INT64_MAX,
            flags: h.authorized ? 1 : 0,
            ext: { v: 0 },
          },
        },
        lastModified: h.lastModified,
      };
    }
    case 6: {
      const { contract, key: dataKey, durability } = key.contractData;
      if (contract.type !== 1) return undefined;
      const impl = world.contracts.get(fromScAddress(contract));
      if (impl === undefined) return undefined;
      if (dataKey.type === 20) {
        if (durability !== 1) return undefined;
        return {
          data: {
            type: 6,
            contractData: {
              ext: { v: 0 },
              contract,
              key: dataKey,
              durability,
              val: { type: 19, instance: { executable: impl.executable, storage: null } },
            },
          },
          lastModified: 1,
          liveUntil: ledgerSeq + LIVE_FOR,
        };
      }
      const found = impl.dataEntry(dataKey, durability === 1 ? 'persistent' : 'temporary', ledgerSeq);
      if (found === undefined) return undefined;
      return {
        data: { type: 6, contractData: { ext: { v: 0 }, contract, key: dataKey, durability, val: found.val } },
        lastModified: found.lastModified,
        liveUntil: found.liveUntil,
      };
    }
    default:
      return undefined;
  }
}
