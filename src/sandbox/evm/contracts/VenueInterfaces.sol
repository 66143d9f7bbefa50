// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice What the order book calls on the other venue contracts.
interface IClientRegistry {
    function readClientInfo(address client)
        external
        view
        returns (uint64 id, bool canTransfer, bool canBuy, bool canSell, bool canCancel, bool isMarketMaker);
}

interface IVenueToken {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}
