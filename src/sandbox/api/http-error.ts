/**
 * Every error the venue API answers is an AppError body (`code`, `message`, `status`, `path`, `timestamp`,
 * `details`). The `code` values are the sandbox's choice (the specification does not list them): the upper
 * snake-case name of the HTTP status, e.g. `BAD_REQUEST`, `UNAUTHORIZED`, `NOT_FOUND`.
 */
export const STATUS_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** A request the API refuses; thrown by handlers, turned into an AppError response by the server. */
export class HttpError extends Error {
  readonly status: number;
  readonly details: readonly string[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    message: string,
    details: readonly string[] = [],
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.details = details;
    this.headers = headers;
  }
}

export function badRequest(message: string, details: readonly string[] = []): HttpError {
  return new HttpError(400, message, details);
}

export function notFound(message: string): HttpError {
  return new HttpError(404, message);
}

export interface AppErrorBody {
  readonly code: string;
  readonly message: string;
  readonly status: number;
  readonly path: string;
  readonly timestamp: string;
  readonly details: readonly string[];
}

export function appErrorBody(
  status: number,
  message: string,
  path: string,
  nowMs: number,
  details: readonly string[] = [],
): AppErrorBody {
  return {
    code: STATUS_CODES[status] ?? `HTTP_${status}`,
    message,
    status,
    path,
    timestamp: new Date(nowMs).toISOString(),
    details,
  };
}
