/**
 * Where the bearer token of the participant endpoints comes from. The REST transport asks for a token before
 * each participant call and reports one the venue refused (HTTP 401); a source that can issue a fresh token
 * forgets the refused one, so the transport retries once with the next. A token is a secret: no source puts
 * one in a log line, an error message or error details.
 */

export interface AccessTokenSource {
  /** A token to send now; a source that issues tokens may fetch one (shared by every caller waiting for it). */
  token(signal?: AbortSignal): Promise<string>;
  /**
   * The venue refused this token. Returns true when a fresh token can be had (the next `token()` gets it),
   * false when this source has no other (a static token): a retry would be refused the same way.
   */
  refused(token: string): boolean;
  /** What kind of source, for logs and errors: `static` or `client-credentials`. */
  readonly kind: string;
}

/** One token given by the operator (`venue.accessToken`): sent as it is until the venue refuses it. */
export function staticToken(value: string): AccessTokenSource {
  return {
    kind: 'static',
    token: () => Promise.resolve(value),
    refused: () => false,
  };
}
