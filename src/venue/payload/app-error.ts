/**
 * Error responses. Every venue error body is an AppError (`code`, `message`, optional `status`, `path`,
 * `timestamp`, `details`); it is decoded into the DltError's details. A body that is not an AppError is
 * kept as a short text excerpt instead, so the status still produces a proper error.
 */
import { z } from 'zod';
import { DltError, type ErrorCode } from '../../core/errors.ts';

const appErrorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    status: z.number().int().nullish(),
    path: z.string().nullish(),
    timestamp: z.string().nullish(),
    details: z.array(z.string()).nullish(),
  })
  .loose();

export type AppError = z.infer<typeof appErrorSchema>;

const EXCERPT_LENGTH = 200;

/** The AppError in a body, or undefined when the body is not one. */
export function decodeAppError(bodyText: string): AppError | undefined {
  try {
    const r = appErrorSchema.safeParse(JSON.parse(bodyText));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** The code for a final (not retried, or out of retries) HTTP status. */
export function errorCodeForStatus(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'E_REST_AUTH';
  if (status === 404) return 'E_REST_NOT_FOUND';
  if (status === 429 || status >= 500) return 'E_REST_UNAVAILABLE';
  return 'E_REST_REQUEST';
}

export interface HttpFailure {
  readonly method: string;
  /** The endpoint template, e.g. `/tradingpairs/{id}`. */
  readonly endpoint: string;
  /** The concrete path with its query (never the base URL, which may carry credentials). */
  readonly path: string;
  readonly status: number;
  readonly bodyText: string;
  readonly attempts: number;
}

export function httpError(failure: HttpFailure): DltError {
  const appError = decodeAppError(failure.bodyText);
  const what = appError === undefined ? '' : `: ${appError.code}: ${appError.message}`;
  const tries = failure.attempts > 1 ? ` after ${failure.attempts} attempts` : '';
  return new DltError(
    errorCodeForStatus(failure.status),
    `${failure.method} ${failure.path}: HTTP ${failure.status}${what}${tries}`,
    {
      details: {
        endpoint: failure.endpoint,
        path: failure.path,
        status: failure.status,
        attempts: failure.attempts,
        ...(appError === undefined ? { body: failure.bodyText.slice(0, EXCERPT_LENGTH) } : { appError }),
      },
    },
  );
}
