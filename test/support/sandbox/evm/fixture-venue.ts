/**
 * Runs a shared matching fixture (test/fixtures/matching, format in src/sandbox/matching/rules.md) against the
 * Solidity order book on a real node: a fresh registry, tokens and order book per fixture, each fixture
 * wallet a funded, whitelisted account, every step a real transaction, and the outcome read back from
 * receipts, token balances and the book's read functions.
 */
import { AbiCoder, type Contract, type JsonRpcProvider, type TransactionReceipt, type Wallet } from 'ethers';
import type { Phase, Token } from '../../../../src/sandbox/matching/types.ts';
import {
  deployBaseToken,
  deployOrderBook,
  deployQuoteToken,
  deployRegistry,
  PHASE_CODES,
  phaseOfCode,
  setClient,
} from '../../../../src/sandbox/evm/book-deploy.ts';
import { fundNative, sandboxWallet, send } from '../../../../src/sandbox/evm/chain.ts';
import { decimalsOf } from '../../../../src/sandbox/evm/pair-params.ts';
import { revertToError } from '../../../../src/sandbox/evm/revert.ts';
import { normaliseEvent, type Fixture, type FixtureEvent, type Step } from '../../matching/fixtures.ts';

export interface EvmStepOutcome {
  readonly step: Step;
  readonly error: string | null;
  readonly orderId: bigint | null;
  readonly events: FixtureEvent[];
  readonly balanceDeltas: Record<string, Partial<Record<Token, bigint>>>;
  readonly book: { buy: BookEntry[]; sell: BookEntry[] };
  readonly lastPrice: bigint;
  readonly phase: Phase | undefined;
}

export interface BookEntry {
  readonly orderId: bigint;
  readonly wallet: string;
  readonly quantity: bigint;
  readonly price: bigint;
}

const abi = AbiCoder.defaultAbiCoder();
const SMALL_ENUMS = new Set(['side', 'orderType', 'executionCondition', 'cancellationType', 'reason']);

export class FixtureVenue {
  private readonly names = new Map<string, string>();
  private readonly signers = new Map<string, Wallet>();
  private book!: Contract;
  private base!: Contract;
  private quote!: Contract;
  private accounts: { name: string; address: string }[] = [];

  private readonly operator: Wallet;

  private constructor(operator: Wallet) {
    this.operator = operator;
  }

  static async deploy(provider: JsonRpcProvider, fixture: Fixture): Promise<FixtureVenue> {
    const operator = sandboxWallet('operator', provider);
    await fundNative(provider, operator.address);
    const v = new FixtureVenue(operator);
    const commission = sandboxWallet('commission', provider).address;
    const registry = await deployRegistry(operator);
    const p = fixture.pair;
    v.base = await deployBaseToken(operator, 'BASE', decimalsOf(p.scales.baseNative, 'base'));
    v.quote = await deployQuoteToken(operator, 'QUOTE', decimalsOf(p.scales.quoteNative, 'quote'));
    v.book = await deployOrderBook(
      operator,
      {
        params: p,
        baseToken: await v.base.getAddress(),
        quoteToken: await v.quote.getAddress(),
        registry: await registry.getAddress(),
        commissionWallet: commission,
        fallbackWallet: operator.address,
      },
      v.base,
    );
    const bookAddress = await v.book.getAddress();
    v.name(bookAddress, 'orderBook');
    v.name(commission, 'commission');
    v.name(operator.address, 'operator');
    v.name(await v.base.getAddress(), 'base');
    v.name(await v.quote.getAddress(), 'quote');
    let clientId = 1n;
    for (const [name, w] of Object.entries(fixture.wallets)) {
      const signer = sandboxWallet(`fixture wallet ${name}`, provider);
      await fundNative(provider, signer.address);
      v.signers.set(name, signer);
      v.name(signer.address, name);
      await setClient(registry, signer.address, {
        clientId: clientId++,
        canTransfer: true,
        canBuy: w.canBuy,
        canSell: w.canSell,
        canCancel: w.canCancel,
        isMarketMaker: w.marketMaker,
      });
      await send(v.base, 'setBeneficiary', [signer.address, true]);
      if (w.base > 0n) await send(v.base, 'mint', [signer.address, w.base]);
      if (w.quote > 0n) await send(v.quote, 'mint', [signer.address, w.quote]);
      await send(v.base.connect(signer) as Contract, 'approve', [bookAddress, w.baseAllowance]);
      await send(v.quote.connect(signer) as Contract, 'approve', [bookAddress, w.quoteAllowance]);
    }
    v.accounts = [...Object.keys(fixture.wallets), 'orderBook', 'commission'].map((name) => ({
      name,
      address: v.addressOf(name),
    }));
    return v;
  }

  private name(address: string, name: string): void {
    this.names.set(address.toLowerCase(), name);
  }

  private addressOf(name: string): string {
    for (const [address, n] of this.names) if (n === name) return address;
    throw new Error(`no account named ${name}`);
  }

  private nameOf(address: string): string {
    return this.names.get(address.toLowerCase()) ?? address;
  }

  async run(fixture: Fixture): Promise<EvmStepOutcome[]> {
    const out: EvmStepOutcome[] = [];
    for (const step of fixture.steps) out.push(await this.runStep(step));
    return out;
  }

  private async runStep(step: Step): Promise<EvmStepOutcome> {
    const before = await this.balances();
    let receipt: TransactionReceipt | null = null;
    let error: string | null = null;
    try {
      receipt = await this.perform(step);
    } catch (e) {
      error = revertToError(e).code;
    }
    const events = receipt ? this.bookEvents(receipt) : [];
    const received = events.find((e) => e.type === 'OrderReceived');
    const after = await this.balances();
    const balanceDeltas: Record<string, Partial<Record<Token, bigint>>> = {};
    for (const [key, value] of after) {
      const delta = value - (before.get(key) as bigint);
      const [account, token] = key.split(':') as [string, Token];
      if (delta !== 0n) (balanceDeltas[account] ??= {})[token] = delta;
    }
    return {
      step,
      error,
      orderId: step.kind === 'place' && received ? BigInt(received.orderId as string) : null,
      events,
      balanceDeltas,
      book: { buy: await this.side(1), sell: await this.side(2) },
      lastPrice: (await this.book.getFunction('getLastPrice').staticCall()) as bigint,
      phase: phaseOfCode(Number(await this.book.getFunction('getOrderBookPhase').staticCall())),
    };
  }

  private async perform(step: Step): Promise<TransactionReceipt | null> {
    const asOperator = this.book.connect(this.operator) as Contract;
    switch (step.kind) {
      case 'place': {
        const o = step.place;
        // Raw ABI words, not the core encoder: the contract, not the client, must refuse bad values here.
        const orderData = abi.encode(['uint256', 'uint256'], [o.quantity, o.price]);
        const reporting = abi.encode(['uint32', 'uint32'], [0, 0]);
        const crossId = abi.encode(['uint256'], [o.crossId]);
        return this.tx(this.as(o.wallet), o.side === 'buy' ? 'newBuyOrder' : 'newSellOrder', [
          orderData,
          reporting,
          crossId,
        ]);
      }
      case 'cancel':
        return this.tx(this.as(step.cancel.wallet), step.cancel.side === 'buy' ? 'cancelBuyOrder' : 'cancelSellOrder', [
          step.cancel.orderId,
        ]);
      case 'adminCancel':
        return this.tx(asOperator, 'adminCancel', [step.adminCancel.orderId]);
      case 'clear':
        return this.tx(asOperator, 'clearOrders', []);
      case 'setPhase':
        return this.tx(asOperator, 'setPhase', [PHASE_CODES[step.phase]]);
      case 'setStaticReferencePrice':
        return this.tx(asOperator, 'setStaticReferencePrice', [step.price]);
      case 'advance':
        throw new Error('time steps are not chain A fixtures');
    }
  }

  private as(wallet: string): Contract {
    const signer = this.signers.get(wallet);
    if (!signer) throw new Error(`fixture has no wallet ${wallet}`);
    return this.book.connect(signer) as Contract;
  }

  private async tx(contract: Contract, method: string, args: readonly unknown[]): Promise<TransactionReceipt> {
    const sent = await contract.getFunction(method).send(...args);
    return (await sent.wait()) as TransactionReceipt;
  }

  private bookEvents(receipt: TransactionReceipt): FixtureEvent[] {
    const address = this.book.target.toString().toLowerCase();
    const out: FixtureEvent[] = [];
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== address) continue;
      const parsed = this.book.interface.parseLog(log);
      if (!parsed) continue;
      const fields: Record<string, unknown> = { type: parsed.name };
      parsed.fragment.inputs.forEach((input, i) => {
        const v = parsed.args[i] as unknown;
        if (input.name === 'token') fields.token = this.nameOf(String(v));
        else if (SMALL_ENUMS.has(input.name)) fields[input.name] = Number(v);
        else fields[input.name] = v;
      });
      out.push(normaliseEvent(fields, (a) => this.nameOf(a)));
    }
    return out;
  }

  private async balances(): Promise<Map<string, bigint>> {
    const entries = await Promise.all(
      this.accounts.flatMap(({ name, address }) =>
        (['base', 'quote'] as const).map(async (token) => {
          const c = token === 'base' ? this.base : this.quote;
          return [`${name}:${token}`, (await c.getFunction('balanceOf').staticCall(address)) as bigint] as const;
        }),
      ),
    );
    return new Map(entries);
  }

  private async side(code: 1 | 2): Promise<BookEntry[]> {
    const ids = (await this.book.getFunction('getOrderIds').staticCall(code, 1000)) as bigint[];
    return Promise.all(
      ids.map(async (id) => {
        const o = (await this.book.getFunction('getOrder').staticCall(id)) as unknown as [
          string,
          bigint,
          bigint,
          bigint,
        ];
        return { orderId: id, wallet: this.nameOf(o[0]), quantity: o[2], price: o[3] };
      }),
    );
  }
}
