// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {BookConfig} from "./BookConfig.sol";

/// @notice Read functions: the ones of venue-facts.md with their shapes, plus what the bot and the venue API
/// need to follow single orders (`getOrder`, `getOrderIds`, `getLastPrice`, the size and tick rules).
abstract contract BookViews is BookConfig {
    uint256 private constant OFFERS = 50;

    function getConfig() external view returns (Config memory) {
        return Config(
            TokenScales(bI, bN),
            TokenScales(qI, qN),
            makerBps,
            takerBps,
            marketMakerBps,
            quoteToken,
            baseToken,
            registry,
            commissionWallet,
            baseFallbackWallet,
            quoteFallbackWallet,
            liquidityBand,
            version
        );
    }

    function getOrderBookPhase() external view returns (uint8) {
        return phase;
    }

    function getLiquidityBand() external view returns (uint8) {
        return liquidityBand;
    }

    function getStaticRefPrice() external view returns (uint64) {
        return staticReferencePrice;
    }

    /// @notice Last execution price (raw); the static reference price until the first trade.
    function getLastPrice() external view returns (uint64) {
        return lastPrice;
    }

    function getLastOrderId() external view returns (uint64) {
        return lastOrderId;
    }

    function getPreTradeControlConfig()
        external
        view
        returns (uint256 maxValue, uint256 minValue, uint64 priceCollarFactor, uint64 maxMatches)
    {
        return (maximumOrderValue, minimumOrderValue, priceCollarBps, maximumMatches);
    }

    /// @notice Index 1 is the static threshold, index 2 the dynamic threshold (basis points); index 0 is the
    /// static reference price the static threshold applies around.
    function getVolatilityManagementConfig()
        external
        view
        returns (uint64 referencePrice, uint64 staticThreshold, uint64 dynamicThreshold)
    {
        return (staticReferencePrice, staticThresholdBps, dynamicThresholdBps);
    }

    function getSizeConfig() external view returns (uint64 minSize, uint64 increment) {
        return (minimumSize, sizeIncrement);
    }

    function getTickTable() external view returns (uint64[] memory from, uint64[] memory tick) {
        from = new uint64[](tickRows.length);
        tick = new uint64[](tickRows.length);
        for (uint256 i = 0; i < tickRows.length; i++) {
            from[i] = uint64(tickRows[i] >> 64);
            tick[i] = uint64(tickRows[i]);
        }
    }

    /// @notice Automatic halts so far and the block time of the last one.
    function getHaltInfo() external view returns (uint64 count, uint64 lastHaltTime) {
        return (haltCount, lastHaltAt);
    }

    function countBuyOrders() external view returns (uint256) {
        return buys.count;
    }

    function countSellOrders() external view returns (uint256) {
        return sells.count;
    }

    /// @notice Best buy price in the high 128 bits, best sell price in the low 128 bits (0 = none).
    function bestBidOffer() external view returns (uint256) {
        return (uint256(buys.best) << 128) | sells.best;
    }

    /// @notice Up to fifty price levels per side, best first, each `(total quantity << 64) | price`.
    function bestFiftyOffers() external view returns (uint256[] memory, uint256[] memory) {
        return (_levels(buys), _levels(sells));
    }

    function getOrder(uint64 orderId)
        external
        view
        returns (address client, uint8 side, uint64 quantity, uint64 price, uint32 crossIdentifier, uint8 status)
    {
        Order storage o = orders[orderId];
        return (o.wallet, o.side, o.remaining, o.price, o.crossId, o.status);
    }

    /// @notice Ids of resting orders of a side (1 buy, 2 sell) in priority order, at most `max`.
    function getOrderIds(uint8 side, uint256 max) external view returns (uint64[] memory ids) {
        BookSide storage bs = _side(side);
        uint256 n = bs.count < max ? bs.count : max;
        ids = new uint64[](n);
        uint256 k = 0;
        for (uint64 price = bs.best; price != 0 && k < n; price = bs.levels[price].worse) {
            for (uint64 id = bs.levels[price].head; id != 0 && k < n; id = orders[id].next) {
                ids[k++] = id;
            }
        }
    }

    function _levels(BookSide storage bs) private view returns (uint256[] memory out) {
        uint256[] memory tmp = new uint256[](OFFERS);
        uint256 k = 0;
        for (uint64 price = bs.best; price != 0 && k < OFFERS; price = bs.levels[price].worse) {
            uint256 total = 0;
            for (uint64 id = bs.levels[price].head; id != 0; id = orders[id].next) total += orders[id].remaining;
            tmp[k++] = (total << 64) | price;
        }
        out = new uint256[](k);
        for (uint256 i = 0; i < k; i++) out[i] = tmp[i];
    }
}
