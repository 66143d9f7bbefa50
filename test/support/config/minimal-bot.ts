/**
 * The smallest valid bot configuration file: the venue, one chain A wallet and one pair, with the `chains:`
 * section the test gives (one YAML line a chain, e.g. `evm: { rpcUrl: 'https://rpc.example' }`).
 */
export function minimalBotYaml(chains: readonly string[]): string {
  return `
venue:
  restUrl: https://venue.example/api/v1
  wsUrl: wss://venue.example/ws
  wsHost: venue.example
  apiKey: { env: DLT_MM_API_KEY }
  accessToken: { file: secrets/token }
chains:
${chains.map((c) => `  ${c}\n`).join('')}wallets:
  - id: evm-main
    chain: evm
    key: { env: DLT_MM_EVM_KEY }
pairs:
  - blockChain: EVM_CHAIN_TESTNET
    base: BOND26
    quote: EURe
    wallet: evm-main
    strategy: ../strategies/ladder.yaml
`;
}
