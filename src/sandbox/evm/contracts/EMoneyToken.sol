// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {SandboxErc20} from "./SandboxErc20.sol";

/// @notice The quote token: an unrestricted e-money ERC-20 that the operator mints to test wallets.
contract EMoneyToken is SandboxErc20 {
    constructor(string memory name_, string memory symbol_, uint8 decimals_) SandboxErc20(name_, symbol_, decimals_) {}
}
