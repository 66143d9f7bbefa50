/**
 * Secret redaction for everything that leaves the process as text (logs, error details). Keys that name a
 * secret are replaced at any depth; credentials inside strings (URL user info, secret query parameters,
 * bearer tokens) are stripped wherever a string appears, because a URL or a header dump can carry them
 * under an innocent key such as `url` or `msg`.
 */

export const REDACTED = '[REDACTED]';

/**
 * Key names that hold a secret, compared without case and without `-`, `_`, `.` or spaces: exact names only,
 * never a fragment or a plural of one (`tokens`, `tokenSymbol` and `quoteToken` are ordinary data). Values
 * are also redacted by what they are: the secrets the process holds, wherever they appear (see the logger).
 */
const SECRET_KEYS = new Set([
  'privatekey',
  'privatekeys',
  'secret',
  'secrets',
  'clientsecret',
  'secretkey',
  'secretseed',
  'seed',
  'seeds',
  'mnemonic',
  'apikey',
  'xapikey',
  'token',
  'accesstoken',
  'refreshtoken',
  'bearertoken',
  'authtoken',
  'idtoken',
  'sessiontoken',
  'password',
  'passwd',
  'authorization',
  'proxyauthorization',
  'auth',
  'credential',
  'credentials',
  'cookie',
  'setcookie',
]);

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s.]/g, '');
}

/** Whether a property of this name holds a secret (case, `-` and `_` do not matter; the name must match whole). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(normaliseKey(key));
}

// Public chain addresses: a chain A address, or a chain B account (G...) or contract (C...) strkey.
const PUBLIC_ADDRESS = /^(0x[0-9a-fA-F]{40}|[GC][A-Z2-7]{55})$/;

/**
 * Whether a property must be hidden: a secret-named key, unless the name is the ambiguous `token` and the
 * value is a public token contract address (the engine names token contracts `token`; a bearer token is
 * never shaped like a chain address). Secret seeds start with `S` and private keys are 64 hex digits, so
 * neither can pass for an address.
 */
function hides(key: string, value: unknown): boolean {
  if (!isSecretKey(key)) return false;
  return !(normaliseKey(key) === 'token' && typeof value === 'string' && PUBLIC_ADDRESS.test(value));
}

// `scheme://user:pass@` or `scheme://token@`: the user-info part of any URL.
// Greedy up to the last `@` before the host, so a password that itself contains `@` is removed whole.
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>]+@/gi;
// Query or form parameters whose name marks a secret: `?apikey=...`, `&access_token=...`.
const SECRET_PARAM =
  /([?&;](?:[a-z0-9_-]*(?:api[-_]?key|token|secret|password|passwd|signature|private[-_]?key|seed|auth)|key|sig|pwd)=)[^&#\s"'<>]*/gi;
// `Bearer abc.def` or `Basic dXNlcjpwYXNz` in free text (a logged header value).
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

/** Strips credentials from free text: URL user info, secret query parameters and bearer/basic tokens. */
export function redactText(text: string): string {
  if (text.length < 5) return text;
  return text.replace(URL_USER_INFO, '$1***@').replace(SECRET_PARAM, '$1***').replace(AUTH_SCHEME, '$1 ***');
}

const MAX_DEPTH = 12;

function redactError(error: Error, seen: WeakSet<object>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: redactText(error.message) };
  if (error.stack !== undefined) out.stack = redactText(error.stack);
  // Own enumerable fields (code, details, status...) go through the same rules as any object.
  for (const [key, value] of Object.entries(error)) {
    out[key] = hides(key, value) ? REDACTED : redactValue(value, seen, depth + 1);
  }
  if (error.cause !== undefined) out.cause = redactValue(error.cause, seen, depth + 1);
  return out;
}

function redactValue(value: unknown, seen: WeakSet<object>, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return redactText(value);
    case 'bigint':
      // JSON has no bigint; a decimal string keeps every digit.
      return value.toString();
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Too deep]';
  seen.add(value);
  try {
    if (value instanceof Error) return redactError(value, seen, depth);
    if (Array.isArray(value)) return value.map((v) => redactValue(v, seen, depth + 1));
    if (value instanceof Map) return redactValue(Object.fromEntries(value), seen, depth);
    if (value instanceof Set) return redactValue([...value], seen, depth);
    if (value instanceof URL) return redactText(value.href);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    // Decimal, Date and similar value objects describe themselves; their output is redacted like any value.
    if (typeof toJSON === 'function') return redactValue(toJSON.call(value), seen, depth + 1);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[key] = hides(key, v) ? REDACTED : redactValue(v, seen, depth + 1);
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * A copy of `value` that is safe to log: secret-named keys hold `[REDACTED]` at any depth, strings lose URL
 * credentials and tokens, errors become plain objects (message and stack redacted), bigints become strings,
 * cycles become `[Circular]`. The input is never modified.
 */
export function redactSecrets<T>(value: T): T extends string ? string : unknown {
  return redactValue(value, new WeakSet(), 0) as T extends string ? string : unknown;
}

/** Redacts a plain record (the shape pino hands to its formatters). */
export function redactRecord(value: Record<string, unknown>): Record<string, unknown> {
  return redactValue(value, new WeakSet(), 0) as Record<string, unknown>;
}
