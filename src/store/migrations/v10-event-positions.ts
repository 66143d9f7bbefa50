/**
 * Migration 10: the position of the last chain event a wallet applied, found without reading all its keys.
 * `processed_events`'s own key starts with (chain, wallet) but goes on by event key, so the largest rowid of a
 * wallet meant reading every key it applied that day; an index on (chain, wallet) is ordered by rowid within
 * them (SQLite ends every index with the rowid), so the last one is one step away.
 */
export const MIGRATION_10 = `
  CREATE INDEX processed_events_position ON processed_events (chain, wallet);
`;
