/**
 * A test sandbox for a test file with the clients a test of its API uses: the participant's test wallets
 * (`Traders`) and the bot's venue REST client, retrying fast. `tradersSession()` registers the file's hooks:
 * the sandbox starts before the file's own `beforeAll` hooks run and stops after its `afterAll` hooks.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Sandbox } from '../../../../src/sandbox/venue/start.ts';
import { VenueRestClient } from '../../../../src/venue/rest-client.ts';
import { RestTransport } from '../../../../src/venue/rest-transport.ts';
import { startTestSandbox, Traders } from './sandbox-clients.ts';

export class TradersSession {
  readonly #over: Record<string, unknown>;
  #sb: Sandbox | undefined;
  #t: Traders | undefined;
  #client: VenueRestClient | undefined;

  /** `over`: the sandbox's settings over the fast test ones (`startTestSandbox`). */
  constructor(over: Record<string, unknown>) {
    this.#over = over;
  }

  /** The sandbox. */
  get sb(): Sandbox {
    if (this.#sb === undefined) throw new Error('the test sandbox has not started');
    return this.#sb;
  }

  /** The participant's test wallets, trading through the manifest's chain endpoints. */
  get t(): Traders {
    if (this.#t === undefined) throw new Error('the test sandbox has not started');
    return this.#t;
  }

  /** The venue REST client on the sandbox's API with its access token, retrying after 10 to 50 ms. */
  get client(): VenueRestClient {
    this.#client ??= new VenueRestClient(
      new RestTransport({
        baseUrl: this.sb.manifest.venue.restUrl,
        accessToken: this.sb.manifest.venue.accessToken,
        retry: { baseMs: 10, capMs: 50 },
      }),
    );
    return this.#client;
  }

  async start(): Promise<void> {
    this.#sb = await startTestSandbox(this.#over);
    this.#t = new Traders(this.#sb);
  }

  async stop(): Promise<void> {
    this.#t?.close();
    await this.#sb?.stop();
  }
}

/** A test sandbox and its clients for the file's tests, started in a `beforeAll` and stopped in an `afterAll`. */
export function tradersSession(over: Record<string, unknown> = {}): TradersSession {
  const session = new TradersSession(over);
  beforeAll(() => session.start(), 120_000);
  afterAll(() => session.stop());
  return session;
}
