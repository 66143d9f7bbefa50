/**
 * The chain A ABI, written from the specification's tables: the order book's functions and events (with their
 * `indexed` flags: without them topics decode as data and fail silently), `OrderRejected` in the layout the
 * sandbox documents, ERC-20 and the whitelist's `readClientInfo`, and every error the venue may revert with:
 * the `OrderBook_` custom errors named in the core's error table and OpenZeppelin 5's ERC-20 errors
 * (`Error(string)` and `Panic(uint256)` are built into ethers' `Interface`).
 */
import { Interface } from 'ethers';
import { CONTRACT_ERRORS, EVM_ERROR_PREFIX } from '../../core/venue-errors.ts';

export const ORDER_BOOK_ABI = [
  'function newBuyOrder(bytes orderData, bytes reportingData, bytes crossIdentifier) returns (uint64)',
  'function newSellOrder(bytes orderData, bytes reportingData, bytes crossIdentifier) returns (uint64)',
  'function cancelBuyOrder(uint64 orderId)',
  'function cancelSellOrder(uint64 orderId)',
  'function getConfig() view returns (((uint256 scale, uint256 nativeScale) base, (uint256 scale, uint256 nativeScale) quote, uint64 makerCommission, uint64 takerCommission, uint64 marketMakerCommission, address quoteToken, address baseToken, address whitelist, address commissionWallet, address baseTokenFallbackWallet, address quoteTokenFallbackWallet, uint8 liquidityBand, bytes11 version))',
  'function getOrderBookPhase() view returns (uint8)',
  'function countBuyOrders() view returns (uint256)',
  'function countSellOrders() view returns (uint256)',
  'function bestFiftyOffers() view returns (uint256[], uint256[])',
  'event OrderReceived(address indexed client, uint64 indexed orderId, uint64 quantity, uint64 price, uint8 side, bytes reportingData, uint64 crossIdentifier, uint8 orderType, uint8 executionCondition)',
  'event NewBuyOrder(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event NewSellOrder(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event NewBuyInitiatedTrade(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event NewSellInitiatedTrade(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event CancelOrder(address indexed client, uint64 indexed orderId, uint64 quantity, uint64 price, uint8 cancellationType, address token, address toAddress)',
  'event OrderRejected(address indexed client, uint64 indexed orderId, uint8 reason, uint64 quantityNotExecuted, uint8 side, uint64 price)',
] as const;

export const ERC20_ABI = [
  'function approve(address spender, uint256 amount) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
] as const;

export const WHITELIST_ABI = [
  'function readClientInfo(address client) view returns (uint64 id, bool canTransfer, bool canBuy, bool canSell, bool canCancel, bool isMarketMaker)',
] as const;

export const ERRORS_ABI = [
  ...CONTRACT_ERRORS.map((d) => `error ${EVM_ERROR_PREFIX}${d.name}()`),
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InvalidSender(address sender)',
  'error ERC20InvalidReceiver(address receiver)',
  'error ERC20InvalidApprover(address approver)',
  'error ERC20InvalidSpender(address spender)',
];

export const orderBookInterface = new Interface([...ORDER_BOOK_ABI]);
export const erc20Interface = new Interface([...ERC20_ABI]);
export const whitelistInterface = new Interface([...WHITELIST_ABI]);
export const errorsInterface = new Interface(ERRORS_ABI);

function topicOf(iface: Interface, name: string): string {
  const e = iface.getEvent(name);
  if (e === null) throw new Error(`ABI has no event ${name}`);
  return e.topicHash;
}

/** topic[0] of every event the adapter follows. */
export const TOPICS = {
  OrderReceived: topicOf(orderBookInterface, 'OrderReceived'),
  NewBuyOrder: topicOf(orderBookInterface, 'NewBuyOrder'),
  NewSellOrder: topicOf(orderBookInterface, 'NewSellOrder'),
  NewBuyInitiatedTrade: topicOf(orderBookInterface, 'NewBuyInitiatedTrade'),
  NewSellInitiatedTrade: topicOf(orderBookInterface, 'NewSellInitiatedTrade'),
  CancelOrder: topicOf(orderBookInterface, 'CancelOrder'),
  OrderRejected: topicOf(orderBookInterface, 'OrderRejected'),
  Transfer: topicOf(erc20Interface, 'Transfer'),
} as const;

/** The lifecycle events, whose topic 1 is the client: one topic filter follows a wallet's orders server side. */
export const LIFECYCLE_TOPICS: readonly string[] = [
  TOPICS.OrderReceived,
  TOPICS.NewBuyOrder,
  TOPICS.NewSellOrder,
  TOPICS.NewBuyInitiatedTrade,
  TOPICS.NewSellInitiatedTrade,
  TOPICS.CancelOrder,
  TOPICS.OrderRejected,
];

/** An address as a 32-byte topic (left-padded, lower case). */
export function addressTopic(address: string): string {
  return `0x${'0'.repeat(24)}${address.slice(2).toLowerCase()}`;
}
