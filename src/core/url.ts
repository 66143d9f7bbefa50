/** Endpoint URLs that may carry credentials (`https://user:pass@host/`) or an API key in their query. */

/** The URL as errors and logs may show it: no user info, no query. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

/**
 * The URL without its user info, which travels instead as a Basic authorization (fetch refuses credentials in a
 * URL, and a header keeps them out of request lines); `parsed` is null when the URL does not parse.
 */
export function withoutCredentials(url: string): { url: string; parsed: URL | null; authorization: string | null } {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return { url, parsed: u, authorization: null };
    const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    u.username = '';
    u.password = '';
    return { url: u.href, parsed: u, authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
  } catch {
    return { url, parsed: null, authorization: null };
  }
}
