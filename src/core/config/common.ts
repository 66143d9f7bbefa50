/** Shared pieces of the configuration schemas. */
import { z } from 'zod';

/** A secret is never written inline: it names an environment variable or a file. */
export const secretRef = z
  .union(
    [
      z.strictObject({ env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'environment variable names are upper case') }),
      z.strictObject({ file: z.string().min(1) }),
    ],
    { error: 'a secret must be {env: NAME} or {file: path}; secrets are never written inline' },
  )
  .describe(
    'Where a secret comes from: {env: NAME} reads an environment variable, {file: path} reads a file (trimmed).',
  );
export type SecretRef = z.infer<typeof secretRef>;

export const humanDecimal = z
  .string()
  .regex(/^[0-9]+(?:\.[0-9]+)?$/, 'expected a non-negative decimal string like "0.5"');
/** A decimal string above zero (a digit other than 0 somewhere); never throws on malformed text, which the regex reports. */
export const positiveDecimal = humanDecimal.refine((s) => /[1-9]/.test(s), 'must be greater than zero');
export const bps = z.number().int().min(0).max(10_000);
export const durationMs = z.number().int().min(0);
export const loopbackOrAnyUrl = z.url();

/** `[ownerReportingId, decisionReportingId]`: the two 32-bit reporting values of an order (the venue's SDK names). */
export const reportingIds = z.tuple([z.number().int().min(0).max(4294967295), z.number().int().min(0).max(4294967295)]);

/** A port the sandbox counts up from (the API, then chain A, then chain B). */
export const portBase = z.number().int().min(1024).max(65000);
/** A number of chain B channel accounts (each carries one transaction per ledger). */
export const channelCount = z.number().int().min(1).max(1000);
