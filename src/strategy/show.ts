/** Decimal text for reasons and diagnostics: exact up to 12 significant digits, so logs stay readable. */
import type { Decimal } from '../core/decimal.ts';

export function show(value: Decimal): string {
  return value.toSignificantDigits(12).toFixed();
}
