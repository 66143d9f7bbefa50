/**
 * Migration 9: what a surveillance record needs beyond the order's history. Each transition's UTC time to the
 * microsecond (`at_us`, epoch microseconds; null for rows written before it), and the reporting values each
 * decision's orders were sent with (`owner_reporting_id`, `decision_reporting_id`: the algorithm identifier).
 */
export const MIGRATION_9 = `
  ALTER TABLE order_transitions ADD COLUMN at_us INTEGER;
  ALTER TABLE decisions ADD COLUMN owner_reporting_id INTEGER;
  ALTER TABLE decisions ADD COLUMN decision_reporting_id INTEGER;
  CREATE INDEX order_transitions_time ON order_transitions (at_ms);
`;
