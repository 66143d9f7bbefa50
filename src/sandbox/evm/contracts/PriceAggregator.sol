// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice Chainlink's consumer interface, exactly as price feeds publish it.
interface AggregatorV3Interface {
    function decimals() external view returns (uint8);

    function description() external view returns (string memory);

    function version() external view returns (uint256);

    function getRoundData(uint80 _roundId)
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
}

/// @notice A price feed of the sandbox: Chainlink's AggregatorV3Interface over rounds that one transmitter
/// starts and answers in the same transaction (`transmit`), as an off-chain reporting feed does. Round ids
/// count from 1; every round is answered in itself (`answeredInRound == roundId`) and started when it is
/// answered (`startedAt == updatedAt == block.timestamp`). A round that does not exist reverts with Chainlink's
/// "No data present", before the first answer `latestRoundData` too. The events are Chainlink's
/// (AggregatorInterface): `NewRound` then `AnswerUpdated`.
contract PriceAggregator is AggregatorV3Interface {
    error Unauthorized();

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    struct Round {
        int256 answer;
        uint64 updatedAt;
    }

    /// @dev The sandbox aggregator's own interface version.
    uint256 public constant override version = 1;
    uint8 public immutable override decimals;
    address public immutable transmitter;
    string private feedDescription;
    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    constructor(uint8 decimals_, string memory description_, address transmitter_) {
        decimals = decimals_;
        feedDescription = description_;
        transmitter = transmitter_;
    }

    function description() external view override returns (string memory) {
        return feedDescription;
    }

    /// @notice Starts and answers a new round; only the transmitter may.
    function transmit(int256 answer) external returns (uint80 roundId) {
        if (msg.sender != transmitter) revert Unauthorized();
        roundId = latestRound + 1;
        latestRound = roundId;
        rounds[roundId] = Round(answer, uint64(block.timestamp));
        emit NewRound(roundId, msg.sender, block.timestamp);
        emit AnswerUpdated(answer, roundId, block.timestamp);
    }

    function getRoundData(uint80 _roundId)
        external
        view
        override
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return roundData(_roundId);
    }

    function latestRoundData()
        external
        view
        override
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return roundData(latestRound);
    }

    function roundData(uint80 id) private view returns (uint80, int256, uint256, uint256, uint80) {
        Round memory r = rounds[id];
        require(r.updatedAt > 0, "No data present");
        return (id, r.answer, r.updatedAt, r.updatedAt, id);
    }
}
