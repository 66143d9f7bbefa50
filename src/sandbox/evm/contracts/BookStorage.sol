// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {BookMath} from "./BookMath.sol";

/// @notice State, events and errors of the order book, and the two sorted sides of the book.
/// A side is a doubly linked list of price levels (best first); a level is a doubly linked FIFO of order ids,
/// so insertion walks only the levels in front of the new price and removal is constant time.
abstract contract BookStorage {
    uint8 internal constant BUY = 1;
    uint8 internal constant SELL = 2;

    uint8 internal constant PHASE_OPEN = 1;
    uint8 internal constant PHASE_CLOSED = 2;
    uint8 internal constant PHASE_MANUAL_HALT = 3;
    uint8 internal constant PHASE_AUTOMATIC_HALT = 4;

    uint8 internal constant BY_PARTICIPANT = 0;
    uint8 internal constant BY_ADMIN = 1;
    uint8 internal constant BY_CONTRACT = 2;

    /// @dev getOrder status: 0 never rested (unknown id, rejected, or executed on arrival), 1 resting,
    /// 2 filled while resting, 3 cancelled.
    uint8 internal constant STATUS_NONE = 0;
    uint8 internal constant STATUS_RESTING = 1;
    uint8 internal constant STATUS_FILLED = 2;
    uint8 internal constant STATUS_CANCELLED = 3;

    uint8 internal constant REASON_SELF_TRADE = 1;
    uint8 internal constant REASON_MAX_MATCHES = 2;
    uint8 internal constant REASON_MAX_STATIC = 3;
    uint8 internal constant REASON_MIN_STATIC = 4;
    uint8 internal constant REASON_MAX_DYNAMIC = 5;
    uint8 internal constant REASON_MIN_DYNAMIC = 6;

    error OrderBook_OrderBookNotOpenForTrading();
    error OrderBook_NotAllowedToBuy();
    error OrderBook_NotAllowedToSell();
    error OrderBook_NotAllowedToCancel();
    error OrderBook_OrderNotFound();
    error OrderBook_InvalidInputOrderData();
    error OrderBook_Unauthorized();
    error OrderBook_InvalidPhase();
    error OrderBook_InvalidConfig();
    error OrderBook_PreTradeControlOrderVolumeBelowMinRange();
    error OrderBook_PreTradeControlPriceNotOnTick();
    error OrderBook_PreTradeControlPriceAboveMaxRange();
    error OrderBook_PreTradeControlPriceBelowMinRange();
    error OrderBook_PreTradeControlOrderValueBelowMinRange();
    error OrderBook_PreTradeControlOrderValueAboveMaxRange();

    event OrderReceived(
        address indexed client,
        uint64 indexed orderId,
        uint64 quantity,
        uint64 price,
        uint8 side,
        bytes reportingData,
        uint64 crossIdentifier,
        uint8 orderType,
        uint8 executionCondition
    );
    event NewBuyOrder(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId);
    event NewSellOrder(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId);
    event NewBuyInitiatedTrade(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId);
    event NewSellInitiatedTrade(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId);
    event CancelOrder(
        address indexed client,
        uint64 indexed orderId,
        uint64 quantity,
        uint64 price,
        uint8 cancellationType,
        address token,
        address toAddress
    );
    event OrderRejected(
        address indexed client, uint64 indexed orderId, uint8 reason, uint64 quantityNotExecuted, uint8 side, uint64 price
    );

    struct Order {
        address wallet;
        uint64 remaining;
        uint32 crossId;
        uint64 price;
        uint64 prev;
        uint64 next;
        /// Maker rate of the wallet at placement: a buy's lock is computed at this rate for its whole life.
        uint16 rateBps;
        uint8 side;
        uint8 status;
    }

    struct Level {
        uint64 head;
        uint64 tail;
        uint64 better;
        uint64 worse;
    }

    struct BookSide {
        uint64 best;
        uint64 count;
        mapping(uint64 => Level) levels;
    }

    mapping(uint64 => Order) internal orders;
    BookSide internal buys;
    BookSide internal sells;
    uint8 internal phase;
    uint64 internal lastOrderId;
    uint64 internal lastPrice;
    uint64 internal staticReferencePrice;
    uint64 internal haltCount;
    uint64 internal lastHaltAt;
    /// Tick table rows `from << 64 | tick` in raw quote units, ascending by `from`.
    uint256[] internal tickRows;

    function _side(uint8 side) internal view returns (BookSide storage) {
        return side == BUY ? buys : sells;
    }

    /// @dev True when price `a` has priority over price `b` on `side`.
    function _better(uint8 side, uint64 a, uint64 b) internal pure returns (bool) {
        return side == BUY ? a > b : a < b;
    }

    /// @dev Appends a stored order to the back of its price level, creating the level in sorted position.
    function _insert(uint64 id) internal {
        Order storage o = orders[id];
        BookSide storage bs = _side(o.side);
        uint64 price = o.price;
        Level storage lv = bs.levels[price];
        if (lv.head == 0) {
            uint64 prev = 0;
            uint64 cur = bs.best;
            while (cur != 0 && _better(o.side, cur, price)) {
                prev = cur;
                cur = bs.levels[cur].worse;
            }
            lv.better = prev;
            lv.worse = cur;
            if (prev == 0) bs.best = price;
            else bs.levels[prev].worse = price;
            if (cur != 0) bs.levels[cur].better = price;
            lv.head = id;
        } else {
            orders[lv.tail].next = id;
            o.prev = lv.tail;
        }
        lv.tail = id;
        bs.count += 1;
    }

    /// @dev Unlinks an order from the book (its level goes when it was the last one); the order record stays.
    function _remove(uint64 id) internal {
        Order storage o = orders[id];
        BookSide storage bs = _side(o.side);
        Level storage lv = bs.levels[o.price];
        if (o.prev != 0) orders[o.prev].next = o.next;
        else lv.head = o.next;
        if (o.next != 0) orders[o.next].prev = o.prev;
        else lv.tail = o.prev;
        if (lv.head == 0) {
            if (lv.better != 0) bs.levels[lv.better].worse = lv.worse;
            else bs.best = lv.worse;
            if (lv.worse != 0) bs.levels[lv.worse].better = lv.better;
            delete bs.levels[o.price];
        }
        o.prev = 0;
        o.next = 0;
        bs.count -= 1;
    }

    /// @dev The tick in force at `price`: the last row whose `from` is at or below it (the first row below
    /// every `from`), found by binary search.
    function _tickAt(uint64 price) internal view returns (uint64) {
        uint256 lo = 0;
        uint256 hi = tickRows.length;
        while (hi - lo > 1) {
            uint256 mid = (lo + hi) / 2;
            if (uint64(tickRows[mid] >> 64) <= price) lo = mid;
            else hi = mid;
        }
        return uint64(tickRows[lo]);
    }
}
