/**
 * Deploys the sandbox's pairs on both chains and sets up every wallet: the participant's test wallets (one
 * market maker and one plain trader per chain, funded but not approved, as a new participant's wallets
 * would be), channel accounts for the chain B market maker, and the simulated traders' own wallets (funded
 * and approved, another participant's: the background maker's, the uninformed takers' and the informed
 * takers', so that the chains tell them apart). Keys are derived from labels, so addresses repeat across starts.
 */
import { Keypair } from '@stellar/stellar-sdk';
import { parseHumanDecimal } from '../../core/decimal.ts';
import { pairScales } from '../../core/pair.ts';
import { toScaled } from '../../core/units.ts';
import { completePair } from '../evm/pair-params.ts';
import {
  deployVenue as deployEvmVenue,
  type DeployedPair,
  type EvmVenue,
  type SandboxWalletSpec,
} from '../evm/venue.ts';
import { sha256 } from '../wasm/crypto.ts';
import { deployPair, deployVenue as deployWasmVenue, type BookDeployment, type Venue } from '../wasm/deploy.ts';
import type { WasmEmulator } from '../wasm/emulator.ts';
import { approve, setClient, setUpWallet } from '../wasm/operator.ts';
import type { SandboxPairDefinition } from './default-pairs.ts';

export type WalletRole = 'participant' | 'flow';

export interface SandboxWallet {
  readonly name: string;
  readonly chain: 'evm' | 'wasm';
  readonly role: WalletRole;
  readonly address: string;
  /** Chain A: hex private key. Chain B: secret seed (S...). Throwaway test keys. */
  readonly key: string;
  readonly marketMaker: boolean;
  /** Human starting balances, one per token contract (chain B pairs each have their own token contracts). */
  readonly balances: readonly TokenBalance[];
  /** Chain B pairs whose tokens the wallet holds (trustlines); chain A wallets hold every token. */
  readonly pairIds: readonly string[];
}

export interface TokenBalance {
  readonly symbol: string;
  /** The token contract as the pair record names it (0x address; chain B: hex of the contract id). */
  readonly token: string;
  readonly amount: string;
}

export interface ChannelAccount {
  readonly publicKey: string;
  readonly secret: string;
}

export interface DeployedSandbox {
  readonly evm: EvmVenue;
  readonly evmPairs: ReadonlyMap<string, DeployedPair>;
  readonly wasm: Venue;
  readonly wasmBooks: ReadonlyMap<string, BookDeployment>;
  readonly wallets: readonly SandboxWallet[];
  /** Funded accounts the chain B market maker may use as transaction sources. */
  readonly channelAccounts: readonly ChannelAccount[];
}

const TEST_BASE = '10000';
const TEST_QUOTE = '1000000';
const FLOW_BASE = '1000000';
const FLOW_QUOTE = '100000000';
const STROOPS = 1_000_000_000_000n;
/** Flow approvals last close to the token's maximum entry lifetime. */
const FLOW_APPROVAL_LEDGERS = 3_000_000;
/** Channel accounts of the market-maker wallet by default (`wasm.channelAccounts`): its transactions per ledger. */
const CHANNELS = 8;

export function wasmKeypair(label: string): Keypair {
  return Keypair.fromRawEd25519Seed(sha256(Buffer.from(`dlt-mm sandbox throwaway key: ${label}`)));
}

/** Chain B wallets of the simulated traders for one pair: the maker's two sides, an uninformed and an informed taker. */
export function flowWasmNames(pairId: string): { bid: string; ask: string; taker: string; informed: string } {
  return {
    bid: `flow-maker-bid-${pairId}`,
    ask: `flow-maker-ask-${pairId}`,
    taker: `flow-taker-${pairId}`,
    informed: `flow-informed-${pairId}`,
  };
}

/** Chain A: the pairs, the participant's two test wallets and the simulated traders' three, as sandbox wallets. */
async function deployEvmSide(
  evmRpcUrl: string,
  evmDefs: readonly SandboxPairDefinition[],
): Promise<{ evm: EvmVenue; wallets: SandboxWallet[] }> {
  const evmSymbols = [...new Set(evmDefs.flatMap((d) => [d.pair.baseTokenData.symbol, d.pair.quoteTokenSymbol]))];
  const amounts = (base: string, quote: string) =>
    Object.fromEntries(
      evmSymbols.map((symbol) => [symbol, evmDefs.some((d) => d.pair.quoteTokenSymbol === symbol) ? quote : base]),
    );
  const unlimited = Object.fromEntries(evmSymbols.map((symbol) => [symbol, 'unlimited']));
  const evmWallets: (SandboxWalletSpec & { role: WalletRole })[] = [
    { name: 'evm-mm', role: 'participant', marketMaker: true, balances: amounts(TEST_BASE, TEST_QUOTE) },
    { name: 'evm-trader', role: 'participant', balances: amounts(TEST_BASE, TEST_QUOTE) },
    { name: 'flow-maker-evm', role: 'flow', balances: amounts(FLOW_BASE, FLOW_QUOTE), allowances: unlimited },
    { name: 'flow-taker-evm', role: 'flow', balances: amounts(FLOW_BASE, FLOW_QUOTE), allowances: unlimited },
    { name: 'flow-informed-evm', role: 'flow', balances: amounts(FLOW_BASE, FLOW_QUOTE), allowances: unlimited },
  ];
  const evm = await deployEvmVenue(evmRpcUrl, {
    pairs: evmDefs.map((d) => ({ pair: d.pair, ...(d.overrides === undefined ? {} : { overrides: d.overrides }) })),
    wallets: evmWallets,
  });
  const wallets: SandboxWallet[] = evm.wallets.map((funded, index) => ({
    name: funded.name,
    chain: 'evm',
    role: evmWallets[index]?.role ?? 'flow',
    address: funded.address,
    key: funded.privateKey,
    marketMaker: funded.marketMaker,
    balances: Object.entries(evmWallets[index]?.balances ?? {}).map(([symbol, amount]) => ({
      symbol,
      token: evm.tokens[symbol]?.address ?? '',
      amount,
    })),
    pairIds: evm.pairs.map((p) => p.id),
  }));
  return { evm, wallets };
}

/** A chain B wallet to set up: its name, role, market-maker flag and the pairs whose tokens it holds. */
interface WasmWalletSpec {
  readonly name: string;
  readonly role: WalletRole;
  readonly marketMaker: boolean;
  readonly pairIds: readonly string[];
}

/** Chain B: the participant's two test wallets on every pair, the simulated traders' four on each pair. */
function wasmWalletSpecs(pairIds: readonly string[]): WasmWalletSpec[] {
  return [
    { name: 'wasm-mm', role: 'participant', marketMaker: true, pairIds: [...pairIds] },
    { name: 'wasm-trader', role: 'participant', marketMaker: false, pairIds: [...pairIds] },
    ...pairIds.flatMap((id) =>
      Object.values(flowWasmNames(id)).map((name) => ({
        name,
        role: 'flow' as const,
        marketMaker: false,
        pairIds: [id],
      })),
    ),
  ];
}

/** What chain B wallets are set up on. */
interface WasmSide {
  readonly emu: WasmEmulator;
  readonly wasm: Venue;
  readonly books: ReadonlyMap<string, BookDeployment>;
  readonly defs: readonly SandboxPairDefinition[];
}

/**
 * One chain B wallet: funded, trustlines and balances on each of its pairs (flow wallets approve the book
 * too), then registered as a client with the next id.
 */
function setUpWasmWallet(side: WasmSide, spec: WasmWalletSpec, clientId: bigint): SandboxWallet {
  const { emu, wasm } = side;
  const keypair = wasmKeypair(spec.name);
  const who = keypair.publicKey();
  const balances: TokenBalance[] = [];
  const [base, quote] = spec.role === 'flow' ? [FLOW_BASE, FLOW_QUOTE] : [TEST_BASE, TEST_QUOTE];
  for (const pairId of spec.pairIds) {
    const book = side.books.get(pairId) as BookDeployment;
    const def = side.defs.find((x) => x.pair.id === pairId) as SandboxPairDefinition;
    const scales = pairScales(completePair(def.pair));
    const baseRaw = toScaled(parseHumanDecimal(base, 'balance'), scales.baseNative, 'balance');
    const quoteRaw = toScaled(parseHumanDecimal(quote, 'balance'), scales.quoteNative, 'balance');
    setUpWallet(emu, wasm, book, who, { stroops: STROOPS, base: baseRaw, quote: quoteRaw });
    if (spec.role === 'flow') {
      const expires = emu.latest.seq + FLOW_APPROVAL_LEDGERS;
      approve(emu, book, 'base', who, book.book.address, baseRaw * 1000n, expires);
      approve(emu, book, 'quote', who, book.book.address, quoteRaw * 1000n, expires);
    }
    balances.push({ symbol: def.pair.baseTokenData.symbol, token: book.addresses.base.hex, amount: base });
    balances.push({ symbol: def.pair.quoteTokenSymbol, token: book.addresses.quote.hex, amount: quote });
  }
  setClient(emu, wasm, who, {
    id: clientId,
    canBuy: true,
    canSell: true,
    canCancel: true,
    canTransfer: true,
    isMarketMaker: spec.marketMaker,
  });
  return {
    name: spec.name,
    chain: 'wasm',
    role: spec.role,
    address: who,
    key: keypair.secret(),
    marketMaker: spec.marketMaker,
    balances,
    pairIds: spec.pairIds,
  };
}

export async function deploySandbox(
  evmRpcUrl: string,
  emu: WasmEmulator,
  defs: readonly SandboxPairDefinition[],
  channels = CHANNELS,
): Promise<DeployedSandbox> {
  const wasmDefs = defs.filter((d) => d.chain === 'wasm');
  const { evm, wallets } = await deployEvmSide(
    evmRpcUrl,
    defs.filter((d) => d.chain === 'evm'),
  );

  const wasm = deployWasmVenue(emu, wasmKeypair('operator'));
  const wasmBooks = new Map<string, BookDeployment>();
  for (const d of wasmDefs) {
    wasmBooks.set(
      d.pair.id,
      deployPair(emu, wasm, {
        pair: completePair(d.pair),
        prefunded: d.prefunded,
        ...(d.overrides === undefined ? {} : { overrides: d.overrides }),
      }),
    );
  }
  const side: WasmSide = { emu, wasm, books: wasmBooks, defs: wasmDefs };
  let clientId = 1n;
  for (const spec of wasmWalletSpecs([...wasmBooks.keys()])) wallets.push(setUpWasmWallet(side, spec, clientId++));
  const channelAccounts = fundChannelAccounts(emu, channels);
  emu.closeLedger();
  return { evm, evmPairs: new Map(evm.pairs.map((p) => [p.id, p])), wasm, wasmBooks, wallets, channelAccounts };
}

/**
 * The market maker's channel accounts, funded: keys derived from their number, so the first eight are the
 * same whatever the count, and addresses repeat across starts.
 */
export function fundChannelAccounts(emu: WasmEmulator, count: number): ChannelAccount[] {
  const channelAccounts: ChannelAccount[] = [];
  for (let i = 1; i <= count; i++) {
    const keypair = wasmKeypair(`wasm-mm channel ${i}`);
    emu.fundAccount(keypair.publicKey(), STROOPS);
    channelAccounts.push({ publicKey: keypair.publicKey(), secret: keypair.secret() });
  }
  return channelAccounts;
}
