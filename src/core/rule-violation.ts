import type { ErrorCode } from './errors.ts';

/** A broken venue rule with the numbers involved, as human decimal strings. */
export interface RuleViolation {
  readonly rule: string;
  readonly code: ErrorCode;
  readonly message: string;
  readonly numbers: Readonly<Record<string, string>>;
}
