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
import { assertOrder, derivePairRules, type PairRules } from '../../core/rules.ts';
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
  const values = parsed.values;
  const chain = oneOf(values.chain, ['evm', 'wasm'] as const, 'chain');
  if (verb === 'encode') return encode(chain, values, io);
  if (verb === 'decode') return decode(chain, values, io);
  throw usage(`unknown order command ${JSON.stringify(verb ?? '')}`);
}

type Values = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

/** The order's terms as the flags give them, checked as far as the flags alone allow. */
function termsOf(values: Values): OrderTerms {
  const side = oneOf<Side>(values.side, ['buy', 'sell'], 'side');
  const type = oneOf<OrderType>(values.type, ['limit', 'market'], 'type', 'limit');
  const condition = oneOf<ExecutionCondition>(
    values.condition,
    ['standard', 'ioc', 'boc', 'fok'],
    'condition',
    'standard',
  );
  const validity = oneOf<Validity>(values.validity, ['gfd', 'gtd'], 'validity', 'gfd');
  if (values.qty === undefined) throw usage('--qty is required');
  if (values.price === undefined && type === 'limit') throw usage('--price is required for a limit order');
  if (values.lifetime !== undefined && !/^[0-9]+$/.test(values.lifetime))
    throw usage('--lifetime must be a whole number of days');
  if (values['cross-id'] !== undefined && !/^[0-9]+$/.test(values['cross-id']))
    throw usage('--cross-id must be a non-negative integer');
  return {
    side,
    quantity: parseHumanDecimal(values.qty, '--qty'),
    price: values.price === undefined ? new Decimal(0) : parseHumanDecimal(values.price, '--price'),
    type,
    condition,
    validity,
    lifetimeDays: values.lifetime === undefined ? 0 : Number(values.lifetime),
  };
}

/** The order book's method that places an order of `side` on `chain`. */
function placeMethod(chain: ChainKind, side: Side): string {
  return chain === 'evm'
    ? `${side === 'buy' ? 'newBuyOrder' : 'newSellOrder'}(bytes orderData, bytes reportingData, bytes crossIdentifier)`
    : `${side === 'buy' ? 'new_buy_order' : 'new_sell_order'}(user, order_data, cross_identifier, reporting_data)`;
}

type Encoded = ReturnType<typeof encodedOrder>;

/** The bytes of the order and the token approval it needs, as shown. */
function encodedOrder(
  chain: ChainKind,
  pair: ReturnType<typeof loadPair>,
  rules: PairRules,
  terms: OrderTerms,
  values: Values,
) {
  const lastPrice = values['last-price'] === undefined ? null : parseHumanDecimal(values['last-price'], '--last-price');
  assertOrder(terms, rules, { lastPrice });
  const crossId = values['cross-id'] === undefined ? 0n : BigInt(values['cross-id']);
  const reporting = values.reporting === undefined ? undefined : parseReportingPair(values.reporting);
  const encoded = encodeOrder(chain, terms, rules.scales, crossId, reporting);
  const approval = approvalFor(
    terms.side,
    terms.quantity,
    terms.price,
    rules.scales,
    rules.commissions,
    values['market-maker'] === true,
  );
  const prefix = chain === 'evm' ? '0x' : '';
  const token = approval.token === 'base' ? pair.smartContractBase : pair.smartContractQuote;
  const unit = approval.token === 'base' ? rules.scales.baseNative : rules.scales.quoteNative;
  return {
    chain,
    pairId: pair.id,
    orderBook: pair.smartContractOrderBook,
    method: placeMethod(chain, terms.side),
    side: terms.side,
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
}

function showEncoded(out: Encoded): string {
  return [
    `chain            ${out.chain} (pair ${out.pairId}, order book ${out.orderBook})`,
    `method           ${out.method}`,
    `quantity         ${out.quantity} (raw ${out.quantityRaw})`,
    `price            ${out.price} (raw ${out.priceRaw})`,
    `orderData        ${out.orderData}`,
    `reportingData    ${out.reportingData}`,
    `crossIdentifier  ${out.crossIdentifier}`,
    `approval         ${out.approval.token} token ${out.approval.tokenContract}: ${out.approval.amountNative} native units (${out.approval.amount}${
      out.approval.token === 'quote'
        ? `, commission ${out.approval.commissionNative} at ${out.approval.rateBps} bp`
        : ''
    }) for spender ${out.approval.spender}`,
    '',
  ].join('\n');
}

function encode(chain: ChainKind, values: Values, io: CliIo): number {
  const pair = loadPair(values['pair-file'], io);
  const rules = derivePairRules(pair);
  checkChain(chain, rules.chain);
  const out = encodedOrder(chain, pair, rules, termsOf(values), values);
  io.stdout(values.json ? `${JSON.stringify(out, null, 2)}\n` : showEncoded(out));
  return EXIT_OK;
}

function decode(chain: ChainKind, values: Values, io: CliIo): number {
  const pair = loadPair(values['pair-file'], io);
  const rules = derivePairRules(pair);
  checkChain(chain, rules.chain);
  if (values['order-data'] === undefined) throw usage('--order-data is required');
  const decoded = decodeOrder(
    chain,
    { orderData: values['order-data'], crossIdentifier: values['cross-id'], reportingData: values.reporting },
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
  if (values.json) {
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
