// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {BookMath} from "./BookMath.sol";
import {BookConfig} from "./BookConfig.sol";
import {BookMatching} from "./BookMatching.sol";
import {BookViews} from "./BookViews.sol";
import {IClientRegistry, IVenueToken} from "./VenueInterfaces.sol";

/// @notice One pair's order book, contract v1: pre-funded, standard GFD limit orders only. The participant
/// interface is the specification's; the operator (the deployer) runs phases, admin cancels, clearing and
/// the static reference price.
contract OrderBook is BookMatching, BookViews {
    using BookMath for BookMath.Scales;

    constructor(Config memory c, Controls memory k) BookConfig(c, k) {}

    function newBuyOrder(bytes calldata orderData, bytes calldata reportingData, bytes calldata crossIdentifier)
        external
        returns (uint64 orderId)
    {
        return _submit(BUY, orderData, reportingData, crossIdentifier);
    }

    function newSellOrder(bytes calldata orderData, bytes calldata reportingData, bytes calldata crossIdentifier)
        external
        returns (uint64 orderId)
    {
        return _submit(SELL, orderData, reportingData, crossIdentifier);
    }

    /// @notice Owner-only and in every phase; the lock comes back, the allowance it consumed does not.
    function cancelBuyOrder(uint64 orderId) external {
        _cancel(orderId, BUY, BY_PARTICIPANT);
    }

    function cancelSellOrder(uint64 orderId) external {
        _cancel(orderId, SELL, BY_PARTICIPANT);
    }

    function setPhase(uint8 newPhase) external onlyOperator {
        if (newPhase < PHASE_OPEN || newPhase > PHASE_AUTOMATIC_HALT) revert OrderBook_InvalidPhase();
        phase = newPhase;
    }

    /// @dev Moves the collar and static threshold reference; the last execution price is left as it is.
    function setStaticReferencePrice(uint64 price) external onlyOperator {
        if (price == 0) revert OrderBook_InvalidConfig();
        staticReferencePrice = price;
    }

    function adminCancel(uint64 orderId) external onlyOperator {
        _cancel(orderId, 0, BY_ADMIN);
    }

    /// @notice End-of-day clearing: every resting order is GFD in v1, so all are cancelled, in order id order.
    function clearOrders() external onlyOperator returns (uint256 cleared) {
        uint64[] memory ids = new uint64[](buys.count + sells.count);
        uint256 n = _collectIds(buys, ids, 0);
        n = _collectIds(sells, ids, n);
        // Insertion sort: clearing is daily and books are small; the order of events must follow the ids.
        for (uint256 i = 1; i < n; i++) {
            uint64 v = ids[i];
            uint256 j = i;
            for (; j > 0 && ids[j - 1] > v; j--) ids[j] = ids[j - 1];
            ids[j] = v;
        }
        for (uint256 i = 0; i < n; i++) _cancel(ids[i], 0, BY_CONTRACT);
        return n;
    }

    function _collectIds(BookSide storage bs, uint64[] memory ids, uint256 k) private view returns (uint256) {
        for (uint64 price = bs.best; price != 0; price = bs.levels[price].worse) {
            for (uint64 id = bs.levels[price].head; id != 0; id = orders[id].next) ids[k++] = id;
        }
        return k;
    }

    /// @dev `side` 0 accepts either side (operator paths). A participant needs the cancel flag (checked
    /// first, as the registry is), a resting order of that side, and to own it. The lock returns to the
    /// owner. On the operator paths a token that refuses the owner (an owner no longer a beneficiary of the
    /// base token) sends it to the pair's fallback wallet instead, so that clearing cannot get stuck; a
    /// participant's own cancel then reverts with the token's reason.
    function _cancel(uint64 orderId, uint8 side, uint8 kind) private {
        if (kind == BY_PARTICIPANT) {
            (,,,, bool canCancel,) = IClientRegistry(registry).readClientInfo(msg.sender);
            if (!canCancel) revert OrderBook_NotAllowedToCancel();
        }
        Order storage o = orders[orderId];
        if (o.status != STATUS_RESTING || (side != 0 && o.side != side)) revert OrderBook_OrderNotFound();
        if (kind == BY_PARTICIPANT && o.wallet != msg.sender) revert OrderBook_NotAllowedToCancel();
        _remove(orderId);
        o.status = STATUS_CANCELLED;
        BookMath.Scales memory s = _scales();
        bool isBuy = o.side == BUY;
        address token = isBuy ? quoteToken : baseToken;
        uint256 amount = isBuy ? s.lockFor(o.price, o.remaining, o.rateBps) : s.baseUnits(o.remaining);
        address to = o.wallet;
        if (kind == BY_PARTICIPANT) {
            IVenueToken(token).transfer(to, amount);
        } else {
            try IVenueToken(token).transfer(to, amount) {}
            catch {
                to = isBuy ? quoteFallbackWallet : baseFallbackWallet;
                IVenueToken(token).transfer(to, amount);
            }
        }
        emit CancelOrder(o.wallet, orderId, o.remaining, o.price, kind, token, to);
    }
}
