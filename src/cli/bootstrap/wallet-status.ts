/**
 * Each trading wallet's record at the venue, read at start (`GET /wallets/byaddress/{address}`): a wallet the
 * venue does not list as VERIFIED may not trade, and the bot refuses to start with the reason; a wallet
 * configured as a market maker that the venue designates otherwise is warned about (its quotes may not count
 * as market making).
 */
import { DltError } from '../../core/errors.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { WalletStatus } from '../../venue/payload/wallet-status.ts';

export interface WalletStatusSource {
  getWalletStatus(address: string): Promise<WalletStatus>;
}

export async function checkWalletStatus(
  rest: WalletStatusSource,
  wallet: { readonly id: string; readonly address: string; readonly marketMaker: boolean },
  logger: Logger,
): Promise<void> {
  const s = await rest.getWalletStatus(wallet.address);
  const details = { wallet: wallet.id, address: wallet.address, status: s.status, designation: s.designation };
  if (s.status !== 'VERIFIED')
    throw new DltError(
      'E_WALLET_NOT_VERIFIED',
      `wallet ${wallet.id} (${wallet.address}) is ${s.status} at the venue, not VERIFIED: it may not trade`,
      { details },
    );
  if (wallet.marketMaker && s.designation !== 'MARKET_MAKER')
    logger.warn(
      details,
      `market-maker wallet ${wallet.id} is designated ${s.designation ?? 'nothing'} at the venue, not MARKET_MAKER: its quotes may not count as market making`,
    );
  else logger.info(details, 'wallet verified at the venue');
}
