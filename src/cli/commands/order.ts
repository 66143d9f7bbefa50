/** `dlt-mm order encode|decode`: the exact bytes the bot would send for an order, and back. */
import { parseArgs } from 'node:util';
import { formatDecimal, parseHumanDecimal, Decimal } from '../../core/decimal.ts';
import { bytesToHex } from '../../core/encoding/hex.ts';
import { decodeOrder, encodeOrder } from '../../core/encoding/order-codec.ts';
import { parseReportingPair } from '../../core/encoding/reporting.ts';
import { DltError } from '../../core/errors.ts';
import { approvalFor } from '../../core/money.ts';
import type { ExecutionCondition, OrderTerms, OrderType, Side, Validity } from '../../core/order-terms.ts';
import { parseTradingPair, type ChainKind } from '../../core/pair.ts';
import { assertOrder, derivePairRules } from '../../core/rules.ts';
import { EXIT_OK, type CliIo } from '../io.ts';

export const ORDER_USAGE = `Usage:
  dlt-mm order encode --chain evm|wasm --pair-file <TradingPair.json> --side buy|sell --qty <n> --price <p>
                      [--type limit|market] [--condition standard|ioc|boc|fok] [--validity gfd|gtd --lifetime <days>]
                      [--cross-id <uint32>] [--reporting <A,B>] [--market-maker] [--last-price <p>] [--json]
  dlt-mm order decode --chain evm|wasm --pair-file <TradingPair.json> --order-data <hex>
                      [--cross-id <hex>] [--reporting <hex>] [--json]`;

function usage(message: string): DltError {
  return new DltError('E_USAGE', `${message}\n${ORDER_USAGE}`);
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string, fallback?: T): T {
  if (value === undefined) {
    if (fallback !== undefined) return fallback;
    throw usage(`--${name} is required`);
  }
  if (!(allowed as readonly string[]).includes(value))
    throw usage(`--${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  return value as T;
}

function loadPair(path: string | undefined, io: CliIo) {
  if (path === undefined) throw usage('--pair-file is required');
  let json: unknown;
  try {
    json = JSON.parse(io.readFile(path));
  } catch (cause) {
    throw new DltError('E_USAGE', `--pair-file ${path}: cannot read a JSON TradingPair (${(cause as Error).message})`, {
      cause,
    });
  }
  return parseTradingPair(json, path);
}

function checkChain(chain: ChainKind, pairChain: ChainKind): void {
  if (chain !== pairChain) throw usage(`--chain ${chain} does not match the pair, which is on ${pairChain}`);
}

const options = {
  chain: { type: 'string' },
  'pair-file': { type: 'string' },
  side: { type: 'string' },
  qty: { type: 'string' },
  price: { type: 'string' },
  type: { type: 'string' },
  condition: { type: 'string' },
  validity: { type: 'string' },
  lifetime: { type: 'string' },
  'cross-id': { type: 'string' },
  reporting: { type: 'string' },
  'market-maker': { type: 'boolean' },
  'last-price': { type: 'string' },
  'order-data': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function orderCommand(args: string[], io: CliIo): number {
  const [verb, ...rest] = args;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: false });
  } catch (cause) {
    throw usage((cause as Error).message);
  }
  const v = parsed.values;
  const chain = oneOf(v.chain, ['evm', 'wasm'] as const, 'chain');
  if (verb === 'encode') return encode(chain, v, io);
  if (verb === 'decode') return decode(chain, v, io);
  throw usage(`unknown order command ${JSON.stringify(verb ?? '')}`);
}

type Values = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

function encode(chain: ChainKind, v: Values, io: CliIo): number {
  const pair = loadPair(v['pair-file'], io);
  const rules = derivePairRules(pair);
  checkChain(chain, rules.chain);
  const side = oneOf<Side>(v.side, ['buy', 'sell'], 'side');
  const type = oneOf<OrderType>(v.type, ['limit', 'market'], 'type', 'limit');
  const condition = oneOf<ExecutionCondition>(v.condition, ['standard', 'ioc', 'boc', 'fok'], 'condition', 'standard');
  const validity = oneOf<Validity>(v.validity, ['gfd', 'gtd'], 'validity', 'gfd');
  if (v.qty === undefined) throw usage('--qty is required');
  if (v.price === undefined && type === 'limit') throw usage('--price is required for a limit order');
  if (v.lifetime !== undefined && !/^[0-9]+$/.test(v.lifetime))
    throw usage('--lifetime must be a whole number of days');
  if (v['cross-id'] !== undefined && !/^[0-9]+$/.test(v['cross-id']))
    throw usage('--cross-id must be a non-negative integer');
  const terms: OrderTerms = {
    side,
    quantity: parseHumanDecimal(v.qty, '--qty'),
    price: v.price === undefined ? new Decimal(0) : parseHumanDecimal(v.price, '--price'),
    type,
    condition,
    validity,
    lifetimeDays: v.lifetime === undefined ? 0 : Number(v.lifetime),
  };
  const lastPrice = v['last-price'] === undefined ? null : parseHumanDecimal(v['last-price'], '--last-price');
  assertOrder(terms, rules, { lastPrice });
  const crossId = v['cross-id'] === undefined ? 0n : BigInt(v['cross-id']);
  const reporting = v.reporting === undefined ? undefined : parseReportingPair(v.reporting);
  const encoded = encodeOrder(chain, terms, rules.scales, crossId, reporting);
  const approval = approvalFor(
    side,
    terms.quantity,
    terms.price,
    rules.scales,
    rules.commissions,
    v['market-maker'] === true,
  );
  const prefix = chain === 'evm' ? '0x' : '';
  const method =
    chain === 'evm'
      ? `${side === 'buy' ? 'newBuyOrder' : 'newSellOrder'}(bytes orderData, bytes reportingData, bytes crossIdentifier)`
      : `${side === 'buy' ? 'new_buy_order' : 'new_sell_order'}(user, order_data, cross_identifier, reporting_data)`;
  const token = approval.token === 'base' ? pair.smartContractBase : pair.smartContractQuote;
  const unit = approval.token === 'base' ? rules.scales.baseNative : rules.scales.quoteNative;
  const out = {
    chain,
    pairId: pair.id,
    orderBook: pair.smartContractOrderBook,
    method,
    side,
    quantity: formatDecimal(terms.quantity),
    quantityRaw: encoded.raw.quantity.toString(),
    price: formatDecimal(terms.price),
    priceRaw: encoded.raw.price.toString(),
    orderData: bytesToHex(encoded.orderData, prefix),
    reportingData: bytesToHex(encoded.reportingData, prefix),
    crossIdentifier: bytesToHex(encoded.crossIdentifier, prefix),
    approval: {
      token: approval.token,
      tokenContract: token,
      spender: pair.smartContractOrderBook,
      amountNative: approval.amount.toString(),
      amount: formatDecimal(new Decimal(approval.amount.toString()).div(unit.toString())),
      commissionNative: approval.commission.toString(),
      rateBps: approval.rateBps,
    },
  };
  if (v.json) {
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT_OK;
  }
  io.stdout(
    [
      `chain            ${out.chain} (pair ${out.pairId}, order book ${out.orderBook})`,
      `method           ${out.method}`,
      `quantity         ${out.quantity} (raw ${out.quantityRaw})`,
      `price            ${out.price} (raw ${out.priceRaw})`,
      `orderData        ${out.orderData}`,
      `reportingData    ${out.reportingData}`,
      `crossIdentifier  ${out.crossIdentifier}`,
      `approval         ${out.approval.token} token ${out.approval.tokenContract}: ${out.approval.amountNative} native units (${out.approval.amount}${
        approval.token === 'quote' ? `, commission ${out.approval.commissionNative} at ${out.approval.rateBps} bp` : ''
      }) for spender ${out.approval.spender}`,
      '',
    ].join('\n'),
  );
  return EXIT_OK;
}

function decode(chain: ChainKind, v: Values, io: CliIo): number {
  const pair = loadPair(v['pair-file'], io);
  const rules = derivePairRules(pair);
  checkChain(chain, rules.chain);
  if (v['order-data'] === undefined) throw usage('--order-data is required');
  const decoded = decodeOrder(
    chain,
    { orderData: v['order-data'], crossIdentifier: v['cross-id'], reportingData: v.reporting },
    rules.scales,
  );
  const out = {
    chain,
    pairId: pair.id,
    quantity: formatDecimal(decoded.quantity),
    quantityRaw: decoded.raw.quantity.toString(),
    price: formatDecimal(decoded.price),
    priceRaw: decoded.raw.price.toString(),
    type: decoded.raw.type,
    condition: decoded.raw.condition,
    validity: decoded.raw.validity,
    lifetimeDays: decoded.raw.lifetimeDays,
    crossIdentifier: decoded.crossIdentifier?.toString() ?? null,
    reporting: decoded.reporting
      ? { a: decoded.reporting.a, b: decoded.reporting.b, free: decoded.reporting.free.toString() }
      : null,
  };
  if (v.json) {
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT_OK;
  }
  const lines = [
    `chain            ${out.chain} (pair ${out.pairId})`,
    `quantity         ${out.quantity} (raw ${out.quantityRaw})`,
    `price            ${out.price} (raw ${out.priceRaw})`,
    `terms            ${out.type} ${out.condition} ${out.validity}${out.validity === 'gtd' ? ` lifetime ${out.lifetimeDays} days` : ''}`,
  ];
  if (out.crossIdentifier !== null) lines.push(`crossIdentifier  ${out.crossIdentifier}`);
  if (out.reporting !== null)
    lines.push(
      `reporting        ${out.reporting.a},${out.reporting.b}${out.reporting.free === '0' ? '' : ` free ${out.reporting.free}`}`,
    );
  io.stdout(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
