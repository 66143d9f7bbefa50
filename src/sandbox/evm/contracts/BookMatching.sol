// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {BookConfig} from "./BookConfig.sol";
import {BookMath} from "./BookMath.sol";
import {IClientRegistry, IVenueToken} from "./VenueInterfaces.sol";

/// @notice Matching of one incoming standard GFD limit order (rules.md "Matching an incoming order X"):
/// collect, self-trade, single execution price, volatility, fill, remainder; then pre-funded settlement.
abstract contract BookMatching is BookConfig {
    using BookMath for BookMath.Scales;

    struct Incoming {
        address wallet;
        uint64 id;
        uint8 side;
        uint64 quantity;
        uint64 price;
        uint32 crossId;
        uint16 takerRate;
        uint16 makerRate;
    }

    struct Fill {
        uint64 id;
        address wallet;
        uint16 rate;
        uint64 quantity;
        uint256 bv;
        uint256 sv;
        uint256 mc;
        /// Quote a resting buy's lock gives up for this fill.
        uint256 released;
    }

    struct Match {
        Fill[] fills;
        uint256 n;
        bool truncated;
        bool selfTrade;
        /// Price of the last collected order: the far end of the collected range.
        uint64 edge;
        uint64 price;
        uint64 filled;
        uint256 tc;
        /// What the commission wallet nets from the match (commissions less rounding given to participants).
        uint256 commissionNet;
    }

    /// @dev The whole life of one submission; reverts leave no trace, rejections keep the order id.
    function _submit(uint8 side, bytes calldata orderData, bytes calldata reportingData, bytes calldata crossIdentifier)
        internal
        returns (uint64)
    {
        if (phase != PHASE_OPEN) revert OrderBook_OrderBookNotOpenForTrading();
        Incoming memory x = _incoming(side);
        (x.quantity, x.price, x.crossId) = _decode(orderData, crossIdentifier);
        _checkControls(x.quantity, x.price);
        x.id = ++lastOrderId;
        emit OrderReceived(x.wallet, x.id, x.quantity, x.price, side, reportingData, x.crossId, 0, 0);
        Match memory m = _collect(x);
        if (m.n > 0) {
            uint8 reason = _vet(x, m);
            if (reason != 0) {
                emit OrderRejected(x.wallet, x.id, reason, x.quantity, side, x.price);
                return x.id;
            }
            _fill(x, m);
            lastPrice = m.price;
        }
        uint64 rest = x.quantity - m.filled;
        _settle(x, m, m.truncated ? 0 : rest);
        if (m.filled > 0) {
            if (side == BUY) emit NewBuyInitiatedTrade(x.wallet, m.filled, m.price, x.id);
            else emit NewSellInitiatedTrade(x.wallet, m.filled, m.price, x.id);
        }
        if (rest > 0) {
            if (m.truncated) {
                emit OrderRejected(x.wallet, x.id, REASON_MAX_MATCHES, rest, side, x.price);
            } else {
                orders[x.id] = Order(x.wallet, rest, x.crossId, x.price, 0, 0, x.makerRate, side, STATUS_RESTING);
                _insert(x.id);
                if (side == BUY) emit NewBuyOrder(x.wallet, rest, x.price, x.id);
                else emit NewSellOrder(x.wallet, rest, x.price, x.id);
            }
        }
        return x.id;
    }

    /// @dev Registry check for the side, and the wallet's rates (a market maker pays its rate in every role).
    function _incoming(uint8 side) private view returns (Incoming memory x) {
        (,, bool canBuy, bool canSell,, bool isMarketMaker) = IClientRegistry(registry).readClientInfo(msg.sender);
        if (side == BUY && !canBuy) revert OrderBook_NotAllowedToBuy();
        if (side == SELL && !canSell) revert OrderBook_NotAllowedToSell();
        x.wallet = msg.sender;
        x.side = side;
        x.takerRate = isMarketMaker ? marketMakerBps : takerBps;
        x.makerRate = isMarketMaker ? marketMakerBps : makerBps;
    }

    /// @dev Contract v1 accepts exactly the two-word (uint64 quantity, uint64 price) encoding and a one-word
    /// uint32 cross identifier, or an empty one ("any unique identifier or empty"), which is 0 like the
    /// default; anything else (extended layouts, packed words, short data) is refused.
    function _decode(bytes calldata orderData, bytes calldata crossIdentifier)
        private
        pure
        returns (uint64, uint64, uint32)
    {
        if (orderData.length != 64 || (crossIdentifier.length != 32 && crossIdentifier.length != 0)) {
            revert OrderBook_InvalidInputOrderData();
        }
        (uint256 q, uint256 p) = abi.decode(orderData, (uint256, uint256));
        uint256 c = crossIdentifier.length == 0 ? 0 : abi.decode(crossIdentifier, (uint256));
        if (q == 0 || p == 0 || q > type(uint64).max || p > type(uint64).max || c > type(uint32).max) {
            revert OrderBook_InvalidInputOrderData();
        }
        return (uint64(q), uint64(p), uint32(c));
    }

    /// @dev Pre-trade controls 4 to 8 of rules.md, in that order.
    function _checkControls(uint64 q, uint64 price) private view {
        if (q < minimumSize || (q - minimumSize) % sizeIncrement != 0) {
            revert OrderBook_PreTradeControlOrderVolumeBelowMinRange();
        }
        if (price % _tickAt(price) != 0) revert OrderBook_PreTradeControlPriceNotOnTick();
        if (priceCollarBps > 0) {
            uint64 ref = staticReferencePrice;
            if (BookMath.outsideBand(price, ref, priceCollarBps)) {
                if (price > ref) revert OrderBook_PreTradeControlPriceAboveMaxRange();
                revert OrderBook_PreTradeControlPriceBelowMinRange();
            }
        }
        (uint256 num, uint256 den) = _scales().exact(price, q);
        if (num <= minimumOrderValue * den) revert OrderBook_PreTradeControlOrderValueBelowMinRange();
        if (num > maximumOrderValue * den) revert OrderBook_PreTradeControlOrderValueAboveMaxRange();
    }

    function _crosses(Incoming memory x, uint64 restingPrice) private pure returns (bool) {
        return x.side == BUY ? restingPrice <= x.price : restingPrice >= x.price;
    }

    /// @dev Crossing resting orders, best price then oldest first, until they cover the quantity or
    /// `maximumMatches` are taken (0 = unlimited).
    function _collect(Incoming memory x) private view returns (Match memory m) {
        BookSide storage bs = _side(x.side == BUY ? SELL : BUY);
        uint256 cap = bs.count;
        if (maximumMatches != 0 && maximumMatches < cap) cap = maximumMatches;
        m.fills = new Fill[](cap);
        uint256 covered = 0;
        for (uint64 price = bs.best; price != 0 && _crosses(x, price); price = bs.levels[price].worse) {
            for (uint64 id = bs.levels[price].head; id != 0;) {
                if (covered >= x.quantity) return m;
                if (m.n == cap) {
                    m.truncated = true;
                    return m;
                }
                Order storage o = orders[id];
                if (o.wallet == x.wallet && o.crossId == x.crossId) m.selfTrade = true;
                m.fills[m.n].id = id;
                m.fills[m.n].wallet = o.wallet;
                m.fills[m.n].rate = o.rateBps;
                m.n += 1;
                covered += o.remaining;
                m.edge = price;
                id = o.next;
            }
        }
    }

    /// @dev Self-trade, then the single execution price and the volatility ranges; a volatility breach
    /// halts the book. Returns the rejection reason, 0 when the match may go ahead.
    function _vet(Incoming memory x, Match memory m) private returns (uint8) {
        if (m.selfTrade) return REASON_SELF_TRADE;
        uint64 last = lastPrice;
        m.price = uint64(
            x.side == BUY ? BookMath.clamp(last, m.edge, x.price) : BookMath.clamp(last, x.price, m.edge)
        );
        uint8 reason = 0;
        uint64 ref = staticReferencePrice;
        if (staticThresholdBps > 0 && BookMath.outsideBand(m.price, ref, staticThresholdBps)) {
            reason = m.price > ref ? REASON_MAX_STATIC : REASON_MIN_STATIC;
        } else if (dynamicThresholdBps > 0 && BookMath.outsideBand(m.price, last, dynamicThresholdBps)) {
            reason = m.price > last ? REASON_MAX_DYNAMIC : REASON_MIN_DYNAMIC;
        }
        if (reason != 0) {
            phase = PHASE_AUTOMATIC_HALT;
            haltCount += 1;
            lastHaltAt = uint64(block.timestamp);
        }
        return reason;
    }

    /// @dev Fills the collected orders in collection order and prices every fill.
    function _fill(Incoming memory x, Match memory m) private {
        BookMath.Scales memory s = _scales();
        uint64 left = x.quantity;
        for (uint256 i = 0; i < m.n; i++) {
            Fill memory f = m.fills[i];
            Order storage o = orders[f.id];
            uint64 before = o.remaining;
            f.quantity = before < left ? before : left;
            left -= f.quantity;
            o.remaining = before - f.quantity;
            if (x.side == SELL) {
                f.released = s.lockFor(o.price, before, f.rate) - s.lockFor(o.price, before - f.quantity, f.rate);
            }
            if (o.remaining == 0) {
                _remove(f.id);
                o.status = STATUS_FILLED;
            }
        }
        m.filled = x.quantity - left;
        // Rounding goes to the participants at the fee wallet's cost; when the commissions cannot pay for it,
        // the seller is credited the floor value too (rules.md, "Settlement of one match").
        if (!_price(x, m, s, false)) _price(x, m, s, true);
    }

    /// @dev Values and commissions of every fill; false when the commissions cannot pay the rounding.
    function _price(Incoming memory x, Match memory m, BookMath.Scales memory s, bool flat) private pure returns (bool) {
        uint256 sumBuyer = 0;
        uint256 sumSeller = 0;
        uint256 sumMaker = 0;
        uint256 shortfall = 0;
        for (uint256 i = 0; i < m.n; i++) {
            Fill memory f = m.fills[i];
            f.bv = s.floorValue(m.price, f.quantity);
            f.sv = flat ? f.bv : s.ceilValue(m.price, f.quantity);
            f.mc = BookMath.commission(x.side == BUY ? f.sv : f.bv, f.rate);
            sumBuyer += f.bv;
            sumSeller += f.sv;
            sumMaker += f.mc;
            if (x.side == SELL && f.bv + f.mc > f.released) shortfall += f.bv + f.mc - f.released;
        }
        m.tc = BookMath.commission(x.side == BUY ? sumBuyer : sumSeller, x.takerRate);
        uint256 gain = m.tc + sumMaker;
        // rules.md gives the rounding away while tc + sum(mc) covers it; the resting buys' lock shortfalls
        // (at most one unit each) are counted too, so the fee wallet's share can never be negative. Flat
        // (sv = bv) always fits: a shortfall only arises on a fill whose maker commission is at least one.
        uint256 cost = sumSeller - sumBuyer + shortfall;
        if (!flat && gain < cost) return false;
        m.commissionNet = gain - cost;
        return true;
    }

    /// @dev Pre-funded settlement: the incoming order's tokens (matched part and resting lock) come in by
    /// one transferFrom, so allowance is consumed; the book pays out of what it holds.
    function _settle(Incoming memory x, Match memory m, uint64 rest) private {
        BookMath.Scales memory s = _scales();
        IVenueToken quote = IVenueToken(quoteToken);
        IVenueToken base = IVenueToken(baseToken);
        if (x.side == BUY) {
            uint256 pay = m.tc + (rest > 0 ? s.lockFor(x.price, rest, x.makerRate) : 0);
            for (uint256 i = 0; i < m.n; i++) pay += m.fills[i].bv;
            quote.transferFrom(x.wallet, address(this), pay);
            if (m.filled > 0) base.transfer(x.wallet, s.baseUnits(m.filled));
            for (uint256 i = 0; i < m.n; i++) {
                Fill memory f = m.fills[i];
                if (f.sv > f.mc) quote.transfer(f.wallet, f.sv - f.mc);
            }
        } else {
            base.transferFrom(x.wallet, address(this), s.baseUnits(uint256(m.filled) + rest));
            uint256 proceeds = 0;
            for (uint256 i = 0; i < m.n; i++) {
                Fill memory f = m.fills[i];
                base.transfer(f.wallet, s.baseUnits(f.quantity));
                uint256 owed = f.bv + f.mc;
                if (f.released > owed) quote.transfer(f.wallet, f.released - owed);
                proceeds += f.sv;
            }
            if (proceeds > m.tc) quote.transfer(x.wallet, proceeds - m.tc);
        }
        if (m.commissionNet > 0) quote.transfer(commissionWallet, m.commissionNet);
    }
}
