/** The few lines `npm run sandbox` prints once the sandbox is ready. */
import type { Manifest } from './manifest.ts';

export function sandboxSummary(m: Manifest, manifestPath: string | null, readyMs: number): string {
  const v = m.venue;
  const lines = [
    `dlt-mm sandbox ready in ${(readyMs / 1000).toFixed(1)} s (${m.trading.mode}, clock ${m.trading.clock}, simulated market ${m.trading.flow ? 'on' : 'off'})`,
    `  REST       ${v.restUrl}   (participant ${v.participantId}; fixed bearer token ${v.accessToken})`,
    `  Tokens     ${v.oauth.tokenUrl}   (client credentials ${v.oauth.clientId} / ${v.oauth.clientSecret}, expires_in ${v.oauth.expiresIn} s)`,
    `  WebSocket  ${v.wsUrl}   (AppSync Events; x-api-key ${v.apiKey}, date field ${v.dateHeader})`,
    `  Control    ${v.controlUrl}/`,
    `  Values     ${v.controlUrl}/feeds/<symbol>   (price feeds; true values ${v.controlUrl}/values; oracles per pair in the manifest)`,
    `  Chain A    ${m.chains.evm.rpcUrl}   (chain id ${m.chains.evm.chainId}, a block every ${m.chains.evm.blockTimeMs} ms)`,
    `  Chain B    ${m.chains.wasm.rpcUrl}   ("${m.chains.wasm.networkPassphrase}", a ledger every ${m.chains.wasm.ledgerIntervalMs} ms)`,
    `  Pairs      ${m.pairs.map((p) => `${p.symbol} (${p.chain === 'evm' ? 'chain A' : `chain B${p.prefunded ? '' : ', no-prefund'}`})`).join(', ')}`,
    `  Wallets    ${m.wallets.map((w) => `${w.name}${w.marketMaker ? ' (market maker)' : ''}`).join(', ')}`,
    `  Manifest   ${manifestPath ?? '(not written)'}   (every URL, credential, pair and wallet key)`,
    'Ctrl-C stops everything.',
  ];
  return `${lines.join('\n')}\n`;
}
