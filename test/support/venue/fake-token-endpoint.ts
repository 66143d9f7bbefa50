/**
 * A real OAuth 2.0 token endpoint on a free loopback port for the client-credentials grant: it records every
 * request (its Authorization header and form), issues `tok-1`, `tok-2`, ... with the `expires_in` it is
 * given, answers queued failures first, and can hold its answers until the test releases them.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenRequest {
  readonly headers: IncomingHttpHeaders;
  readonly form: Record<string, string>;
}

export interface TokenReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

export class FakeTokenEndpoint {
  readonly requests: TokenRequest[] = [];
  /** Tokens issued so far, in order. */
  readonly issued: string[] = [];
  expiresIn: number | undefined = 60;
  readonly #server: Server;
  readonly #failures: TokenReply[] = [];
  #held: (() => void)[] | undefined;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeTokenEndpoint> {
    let endpoint: FakeTokenEndpoint | undefined;
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const e = endpoint as FakeTokenEndpoint;
        e.requests.push({ headers: req.headers, form: Object.fromEntries(new URLSearchParams(text)) });
        const answer = () => {
          const reply = e.#failures.shift() ?? e.#issue();
          res.writeHead(reply.status, {
            'content-type': 'application/json',
            'cache-control': 'no-store',
            ...reply.headers,
          });
          res.end(JSON.stringify(reply.body));
        };
        if (e.#held === undefined) answer();
        else e.#held.push(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = new FakeTokenEndpoint(server);
    return endpoint;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/oauth2/token`;
  }

  /** The next answers are these failures (RFC 6749 section 5.2 error bodies). */
  fail(...replies: TokenReply[]): this {
    this.#failures.push(...replies);
    return this;
  }

  /** Holds every answer from now on until `release()`. */
  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const answer of held) answer();
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #issue(): TokenReply {
    const token = `tok-${this.issued.length + 1}`;
    this.issued.push(token);
    return {
      status: 200,
      body: {
        access_token: token,
        token_type: 'Bearer',
        ...(this.expiresIn === undefined ? {} : { expires_in: this.expiresIn }),
      },
    };
  }
}
