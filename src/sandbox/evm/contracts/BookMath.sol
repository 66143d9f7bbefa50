// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice Integer money maths of the order book (rules.md, "Notation"). Every value is in native quote units;
/// prices and quantities are raw internal units. Nothing is rounded except where the rules say which way.
library BookMath {
    uint256 internal constant BPS = 10_000;

    /// @dev The pair's scales, kept together so that value maths needs one argument.
    struct Scales {
        uint256 baseInternal;
        uint256 quoteInternal;
        uint256 baseNative;
        uint256 quoteNative;
    }

    /// @dev exact(P, q) = P * q * qN / (qI * bI) as numerator and denominator.
    function exact(Scales memory s, uint256 price, uint256 quantity) internal pure returns (uint256 num, uint256 den) {
        return (price * quantity * s.quoteNative, s.quoteInternal * s.baseInternal);
    }

    function floorValue(Scales memory s, uint256 price, uint256 quantity) internal pure returns (uint256) {
        (uint256 num, uint256 den) = exact(s, price, quantity);
        return num / den;
    }

    function ceilValue(Scales memory s, uint256 price, uint256 quantity) internal pure returns (uint256) {
        (uint256 num, uint256 den) = exact(s, price, quantity);
        return num == 0 ? 0 : (num - 1) / den + 1;
    }

    /// @dev commission(v, bps) = ceil(v * bps / 10000): the fee wallet never loses a fraction.
    function commission(uint256 value, uint256 bps) internal pure returns (uint256) {
        uint256 num = value * bps;
        return num == 0 ? 0 : (num - 1) / BPS + 1;
    }

    /// @dev The quote a pre-funded resting buy of `quantity` at `limit` holds.
    function lockFor(Scales memory s, uint256 limit, uint256 quantity, uint256 rateBps) internal pure returns (uint256) {
        uint256 v = floorValue(s, limit, quantity);
        return v + commission(v, rateBps);
    }

    /// @dev Native base units of a raw quantity; the constructor ensures bN is a multiple of bI.
    function baseUnits(Scales memory s, uint256 quantity) internal pure returns (uint256) {
        return quantity * (s.baseNative / s.baseInternal);
    }

    function clamp(uint256 v, uint256 lo, uint256 hi) internal pure returns (uint256) {
        uint256 r = v < lo ? lo : v;
        return r > hi ? hi : r;
    }

    /// @dev True when |price - ref| * 10000 > ref * bps, i.e. outside the band around `ref`.
    function outsideBand(uint256 price, uint256 ref, uint256 bps) internal pure returns (bool) {
        uint256 diff = price > ref ? price - ref : ref - price;
        return diff * BPS > ref * bps;
    }
}
