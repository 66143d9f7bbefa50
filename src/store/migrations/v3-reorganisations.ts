/**
 * Migration 3: chain A blocks can be reorganised away. Every change the engine derived from a chain transaction names that
 * transaction and its block (so the change can be withdrawn when the block is), and the transactions applied
 * from chain A receipts or events are listed until the follower's confirmed cursor has seen them.
 */
export const MIGRATION_3 = `
  ALTER TABLE order_transitions ADD COLUMN source_tx TEXT;
  ALTER TABLE order_transitions ADD COLUMN source_block TEXT;
  ALTER TABLE order_transitions ADD COLUMN withdrawn_ms INTEGER;
  -- 'event': a transition of the table; 'rollback': the record of a withdrawal (not replayed).
  ALTER TABLE order_transitions ADD COLUMN kind TEXT NOT NULL DEFAULT 'event';
  CREATE INDEX order_transitions_source ON order_transitions (source_tx, source_block) WHERE source_tx IS NOT NULL;

  ALTER TABLE processed_events ADD COLUMN block_hash TEXT;
  CREATE INDEX processed_events_tx ON processed_events (tx_hash, block_hash);

  ALTER TABLE fills ADD COLUMN block_hash TEXT;
  CREATE INDEX fills_tx ON fills (tx_hash, block_hash);

  CREATE TABLE chain_applications (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    block_hash TEXT NOT NULL,
    height INTEGER NOT NULL,
    -- The order whose placement or cancellation this is; null for a transaction the follower applied.
    client_order_id TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('place', 'cancel', 'events')),
    confirmed INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (chain, wallet, tx_hash, block_hash)
  );
  CREATE INDEX chain_applications_open ON chain_applications (chain, wallet) WHERE confirmed = 0;
  CREATE INDEX chain_applications_height ON chain_applications (chain, wallet, height);
  `;
