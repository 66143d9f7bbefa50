/** Field formats of the interface specification, shared by every validator of venue data. */
import { z } from 'zod';
import { DECIMAL_STRING_MAX_LENGTH, DECIMAL_STRING_PATTERN } from './decimal.ts';
import { SCALE_PATTERN } from './units.ts';

export const decimalString = z
  .string()
  .max(DECIMAL_STRING_MAX_LENGTH)
  .regex(DECIMAL_STRING_PATTERN, 'expected a decimal string like "12.5"');
export const chainAddress = z
  .string()
  .max(255)
  .regex(/^(0x)?[0-9a-fA-F]+$/, 'expected a hex contract address');
export const scaleString = z.string().regex(SCALE_PATTERN, 'expected an integer string of 1 to 38 digits');
export const isin = z
  .string()
  .max(255)
  .regex(/^[A-Z]{2}[0-9A-Z]{9}[0-9]$/, 'expected an ISIN');
export const lei = z
  .string()
  .max(255)
  .regex(/^[0-9A-Z]{18}[0-9]{2}$/, 'expected an LEI');
export const countryCode = z.string().regex(/^[A-Z]{2}$/, 'expected a two-letter country code');
export const currencyCode = z
  .string()
  .max(255)
  .regex(/^[A-Z]{3}$/, 'expected a three-letter currency code');
export const dateTime = z
  .string()
  .max(64)
  .refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO 8601 date-time');
export const int32Min0 = z.number().int().min(0).max(2147483647);
/** int64 arrives as a JSON number or, from careful servers, as an integer string. */
export const int64Min0 = z.union([
  z.number().int().min(0).refine(Number.isSafeInteger, 'integer too large for a JSON number; send it as a string'),
  z.string().regex(/^[0-9]{1,19}$/, 'expected a non-negative integer'),
]);

/** Formats a zod error as one line per problem: `path: message`. */
export function describeIssues(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.');
    return `${path === '' ? '(root)' : path}: ${issue.message}`;
  });
}
