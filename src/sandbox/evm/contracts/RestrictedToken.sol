// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {SandboxErc20} from "./SandboxErc20.sol";

/// @notice The base token (the financial instrument): only beneficiaries the operator admits may receive it,
/// by transfer, transferFrom or mint. The check runs before the balance check, so a transfer to an outsider
/// fails with the beneficiary message whatever the sender holds.
contract RestrictedToken is SandboxErc20 {
    event BeneficiaryChanged(address indexed account, bool allowed);

    mapping(address => bool) public isBeneficiary;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) SandboxErc20(name_, symbol_, decimals_) {}

    function setBeneficiary(address account, bool allowed) external onlyOperator {
        isBeneficiary[account] = allowed;
        emit BeneficiaryChanged(account, allowed);
    }

    function _checkReceiver(address to) internal view override {
        require(isBeneficiary[to], "Receiver must be a beneficiary");
    }
}
