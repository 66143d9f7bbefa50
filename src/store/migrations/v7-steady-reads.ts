/**
 * Migration 7: indexes for the reads a running bot makes at every order, transaction and chain batch, which
 * scanned the day's rows without them (their cost grew with how long the bot had run): a transaction by its
 * order and by its source's sequence, an order by its cancellation's transaction, a fill by its order.
 */
export const MIGRATION_7 = `
  CREATE INDEX transactions_order ON transactions (wallet, client_order_id);
  CREATE INDEX transactions_sequence ON transactions (chain, source, sequence);
  CREATE INDEX orders_cancel_tx ON orders (cancel_tx_hash);
  CREATE INDEX fills_order ON fills (wallet, client_order_id);
  `;
