// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice The venue's whitelist: per wallet a client id and the buy, sell, cancel, transfer and market-maker
/// flags. Order books read it on every submission and cancellation, so a change applies at once.
contract ClientRegistry {
    error Unauthorized();

    event ClientUpdated(
        address indexed client, uint64 id, bool canTransfer, bool canBuy, bool canSell, bool canCancel, bool isMarketMaker
    );

    struct ClientInfo {
        uint64 id;
        bool canTransfer;
        bool canBuy;
        bool canSell;
        bool canCancel;
        bool isMarketMaker;
    }

    address public immutable operator;
    mapping(address => ClientInfo) private clients;

    constructor() {
        operator = msg.sender;
    }

    function readClientInfo(address client)
        external
        view
        returns (uint64 id, bool canTransfer, bool canBuy, bool canSell, bool canCancel, bool isMarketMaker)
    {
        ClientInfo memory c = clients[client];
        return (c.id, c.canTransfer, c.canBuy, c.canSell, c.canCancel, c.isMarketMaker);
    }

    /// @dev An all-false entry with id 0 is the same as an unknown client.
    function setClient(
        address client,
        uint64 id,
        bool canTransfer,
        bool canBuy,
        bool canSell,
        bool canCancel,
        bool isMarketMaker
    ) external {
        if (msg.sender != operator) revert Unauthorized();
        clients[client] = ClientInfo(id, canTransfer, canBuy, canSell, canCancel, isMarketMaker);
        emit ClientUpdated(client, id, canTransfer, canBuy, canSell, canCancel, isMarketMaker);
    }
}
