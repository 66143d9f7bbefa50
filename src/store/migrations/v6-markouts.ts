/**
 * Migration 6: what each fill of ours was worth afterwards. `fill_marks` holds the value (fair value, or the mid
 * of others' book) at the fill (horizon 0) and at each markout horizon, once known; `orders.level` the ladder
 * level a quote was placed for (0 nearest the centre), so that markouts can be read by level; `pair_samples.value`
 * the value the PnL attribution marks to at each sample; an index lets the attribution read the chain fees
 * charged since its last look without scanning the day.
 */
export const MIGRATION_6 = `
  CREATE TABLE fill_marks (
    fill_id TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    horizon_ms INTEGER NOT NULL,
    value TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (fill_id, horizon_ms)
  );
  CREATE INDEX fill_marks_pair ON fill_marks (pair_id, horizon_ms);
  ALTER TABLE orders ADD COLUMN level INTEGER;
  ALTER TABLE pair_samples ADD COLUMN value TEXT;
  CREATE INDEX transactions_charged ON transactions (updated_ms) WHERE fee IS NOT NULL;
  `;
