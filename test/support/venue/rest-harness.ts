/** A REST client wired to a fake venue with a test clock, a recording sleep and captured logs. */
import { createLogger } from '../../../src/telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../../src/telemetry/metrics.ts';
import { VenueRestClient } from '../../../src/venue/rest-client.ts';
import { RestTransport, type RestTransportOptions } from '../../../src/venue/rest-transport.ts';
import type { FakeRestVenue } from './fake-rest-venue.ts';
import { TestClock, recordingSleep } from '../clock.ts';

export const ACCESS_TOKEN = 'bearer-Zq81-secret-token';

/** The parts a test may share with what it builds before the client (a token source on the same clock). */
export interface HarnessParts {
  readonly clock: TestClock;
  readonly metrics: Metrics;
  readonly lines: string[];
  readonly logger: ReturnType<typeof createLogger>;
}

export function restHarness(
  venue: FakeRestVenue,
  options: Partial<RestTransportOptions> | ((parts: HarnessParts) => Partial<RestTransportOptions>) = {},
) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (l: string) => void lines.push(l) } });
  const metrics = createMetrics();
  const clock = new TestClock();
  const recorder = recordingSleep();
  const extra = typeof options === 'function' ? options({ clock, metrics, lines, logger }) : options;
  const transport = new RestTransport({
    baseUrl: venue.baseUrl,
    accessToken: ACCESS_TOKEN,
    clock: clock.withSleep(recorder.sleep),
    random: () => 0.5,
    logger,
    metrics,
    ...extra,
  });
  return { client: new VenueRestClient(transport), transport, lines, metrics, clock, delays: recorder.delays };
}
