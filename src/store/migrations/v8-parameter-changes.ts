/**
 * Migration 8: the parameter changes a running bot accepted (a strategy file loaded at start or read again on
 * the reload signal), append-only, each row chained to the one before by hash so that an edit or a deletion is
 * seen by whoever verifies the chain.
 */
export const MIGRATION_8 = `
  CREATE TABLE parameter_changes (
    seq INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    operator TEXT NOT NULL,
    file TEXT NOT NULL,
    old_hash TEXT,
    new_hash TEXT NOT NULL,
    changes_json TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    row_hash TEXT NOT NULL
  );
  CREATE TRIGGER parameter_changes_no_update BEFORE UPDATE ON parameter_changes
    BEGIN SELECT RAISE(ABORT, 'parameter changes are append-only'); END;
  CREATE TRIGGER parameter_changes_no_delete BEFORE DELETE ON parameter_changes
    BEGIN SELECT RAISE(ABORT, 'parameter changes are append-only'); END;
  `;
