/**
 * Migration 5: each pair's fair value as the bot saw it, sampled for the trading-day report: the combined value
 * and its source, the mid of others' book it was compared with, the action and the guards in force.
 */
export const MIGRATION_5 = `
  CREATE TABLE fair_value_samples (
    pair_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    fair TEXT,
    source TEXT,
    others_mid TEXT,
    action TEXT NOT NULL,
    guards TEXT NOT NULL,
    PRIMARY KEY (pair_id, at_ms)
  );
  `;
