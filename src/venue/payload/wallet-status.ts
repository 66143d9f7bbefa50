/**
 * `GET /wallets/byaddress/{address}`: `{address, status, designation}` (the venue's documentation and SDK).
 * Status CREATED, IN_VERIFICATION, VERIFIED, REMOVED or BLOCKED; designation TRADING or MARKET_MAKER. A value
 * outside those lists is kept as sent (the venue may add some): only VERIFIED lets a wallet trade.
 */
import { z } from 'zod';
import { malformedPayload, zodProblems } from './problems.ts';

export const WALLET_STATUSES = ['CREATED', 'IN_VERIFICATION', 'VERIFIED', 'REMOVED', 'BLOCKED'] as const;
export const WALLET_DESIGNATIONS = ['TRADING', 'MARKET_MAKER'] as const;

const walletStatusSchema = z
  .object({
    address: z.string().min(1).max(255),
    status: z.string().min(1).max(255),
    designation: z.string().max(255).nullish(),
  })
  .loose();

export interface WalletStatus {
  readonly address: string;
  readonly status: string;
  /** Absent when the venue sends none. */
  readonly designation: string | null;
}

export function parseWalletStatus(body: unknown, source: string): WalletStatus {
  const r = walletStatusSchema.safeParse(body);
  if (!r.success) throw malformedPayload(source, zodProblems(r.error, body));
  return { address: r.data.address, status: r.data.status, designation: r.data.designation ?? null };
}
