// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {BookMath} from "./BookMath.sol";
import {BookStorage} from "./BookStorage.sol";

/// @notice The fixed configuration of one pair's order book. Everything that every submission reads is
/// immutable (in the code, not in storage), which keeps a placement cheap; only the static reference price,
/// the phase and the tick table live in storage.
abstract contract BookConfig is BookStorage {
    struct TokenScales {
        uint256 scale;
        uint256 nativeScale;
    }

    /// @dev The shape `getConfig()` returns (venue-facts.md).
    struct Config {
        TokenScales base;
        TokenScales quote;
        uint64 makerCommission;
        uint64 takerCommission;
        uint64 marketMakerCommission;
        address quoteToken;
        address baseToken;
        address whitelist;
        address commissionWallet;
        address baseTokenFallbackWallet;
        address quoteTokenFallbackWallet;
        uint8 liquidityBand;
        bytes11 version;
    }

    /// @dev Pre-trade and volatility controls in raw units (sizes and prices internal, values native quote).
    struct Controls {
        uint64 minimumSize;
        uint64 sizeIncrement;
        uint64[] tickFrom;
        uint64[] tickSize;
        uint64 priceCollarFactor;
        uint64 staticReferencePrice;
        uint64 staticThreshold;
        uint64 dynamicThreshold;
        uint256 minimumOrderValue;
        uint256 maximumOrderValue;
        uint64 maximumMatches;
        uint8 initialPhase;
    }

    address public immutable operator;
    uint256 internal immutable bI;
    uint256 internal immutable qI;
    uint256 internal immutable bN;
    uint256 internal immutable qN;
    uint16 internal immutable makerBps;
    uint16 internal immutable takerBps;
    uint16 internal immutable marketMakerBps;
    address internal immutable quoteToken;
    address internal immutable baseToken;
    address internal immutable registry;
    address internal immutable commissionWallet;
    address internal immutable baseFallbackWallet;
    address internal immutable quoteFallbackWallet;
    uint8 internal immutable liquidityBand;
    bytes11 internal immutable version;
    uint64 internal immutable minimumSize;
    uint64 internal immutable sizeIncrement;
    uint64 internal immutable priceCollarBps;
    uint64 internal immutable staticThresholdBps;
    uint64 internal immutable dynamicThresholdBps;
    uint64 internal immutable maximumMatches;
    uint256 internal immutable minimumOrderValue;
    uint256 internal immutable maximumOrderValue;

    constructor(Config memory c, Controls memory k) {
        bool ok = c.base.scale > 0 && c.quote.scale > 0 && c.quote.nativeScale > 0 && c.base.nativeScale > 0
            && c.base.nativeScale % c.base.scale == 0 && c.makerCommission <= BookMath.BPS
            && c.takerCommission <= BookMath.BPS && c.marketMakerCommission <= BookMath.BPS && k.minimumSize > 0
            && k.sizeIncrement > 0 && k.tickFrom.length > 0 && k.tickFrom.length == k.tickSize.length
            && k.initialPhase >= PHASE_OPEN && k.initialPhase <= PHASE_AUTOMATIC_HALT && k.staticReferencePrice > 0;
        if (!ok) revert OrderBook_InvalidConfig();
        for (uint256 i = 0; i < k.tickFrom.length; i++) {
            if (k.tickSize[i] == 0 || (i > 0 && k.tickFrom[i] <= k.tickFrom[i - 1])) revert OrderBook_InvalidConfig();
            tickRows.push((uint256(k.tickFrom[i]) << 64) | k.tickSize[i]);
        }
        operator = msg.sender;
        bI = c.base.scale;
        qI = c.quote.scale;
        bN = c.base.nativeScale;
        qN = c.quote.nativeScale;
        makerBps = uint16(c.makerCommission);
        takerBps = uint16(c.takerCommission);
        marketMakerBps = uint16(c.marketMakerCommission);
        quoteToken = c.quoteToken;
        baseToken = c.baseToken;
        registry = c.whitelist;
        commissionWallet = c.commissionWallet;
        baseFallbackWallet = c.baseTokenFallbackWallet;
        quoteFallbackWallet = c.quoteTokenFallbackWallet;
        liquidityBand = c.liquidityBand;
        version = c.version;
        minimumSize = k.minimumSize;
        sizeIncrement = k.sizeIncrement;
        priceCollarBps = k.priceCollarFactor;
        staticThresholdBps = k.staticThreshold;
        dynamicThresholdBps = k.dynamicThreshold;
        maximumMatches = k.maximumMatches;
        minimumOrderValue = k.minimumOrderValue;
        maximumOrderValue = k.maximumOrderValue;
        staticReferencePrice = k.staticReferencePrice;
        lastPrice = k.staticReferencePrice;
        phase = k.initialPhase;
    }

    modifier onlyOperator() {
        if (msg.sender != operator) revert OrderBook_Unauthorized();
        _;
    }

    function _scales() internal view returns (BookMath.Scales memory) {
        return BookMath.Scales(bI, qI, bN, qN);
    }
}
