/**
 * Schema migrations, applied in order and recorded in `meta.schema_version`. Never edit a released migration:
 * add the next one. Integers that can exceed int64 (order ids, token amounts, quantities) are decimal TEXT.
 */
import { MIGRATION_1 } from './migrations/v1-initial.ts';
import { MIGRATION_2 } from './migrations/v2-restart.ts';
import { MIGRATION_3 } from './migrations/v3-reorganisations.ts';
import { MIGRATION_4 } from './migrations/v4-obligations.ts';
import { MIGRATION_5 } from './migrations/v5-fair-value.ts';
import { MIGRATION_6 } from './migrations/v6-markouts.ts';
import { MIGRATION_7 } from './migrations/v7-steady-reads.ts';
import { MIGRATION_8 } from './migrations/v8-parameter-changes.ts';
import { MIGRATION_9 } from './migrations/v9-audit-records.ts';
import { MIGRATION_10 } from './migrations/v10-event-positions.ts';

export const MIGRATIONS: readonly string[] = [
  MIGRATION_1,
  MIGRATION_2,
  MIGRATION_3,
  MIGRATION_4,
  MIGRATION_5,
  MIGRATION_6,
  MIGRATION_7,
  MIGRATION_8,
  MIGRATION_9,
  MIGRATION_10,
];
