/**
 * AWS Amplify's Events client (`aws-amplify/data`, `events.connect`) in a process of its own, as a client
 * nobody here wrote. It connects to an Events endpoint with an API key, subscribes to one channel, prints
 * every event it receives as one JSON line (`{"event": ...}`), and after `count` events closes the channel
 * and every connection and prints `{"closed": true}`. A failure prints `{"error": "..."}`.
 *
 *   node test/support/amplify/events-client.ts <https endpoint ending /event> <api key> <channel> <count>
 *
 * It runs in a child process because Node's own WebSocket (which Amplify uses) trusts a test certificate
 * only through NODE_EXTRA_CA_CERTS, read when the process starts.
 */
import { Amplify } from 'aws-amplify';
import { events } from 'aws-amplify/data';

const [endpoint, apiKey, channelName, countText] = process.argv.slice(2);
const count = Number(countText ?? '1');
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

try {
  if (endpoint === undefined || apiKey === undefined || channelName === undefined)
    throw new Error('usage: <endpoint> <api key> <channel> <count>');
  Amplify.configure({ API: { Events: { endpoint, region: 'eu-central-1', defaultAuthMode: 'apiKey', apiKey } } });
  const channel = await events.connect(channelName);
  let seen = 0;
  await new Promise<void>((resolve, reject) => {
    channel.subscribe({
      next: (data: unknown) => {
        say({ event: data });
        seen += 1;
        if (seen >= count) resolve();
      },
      error: (e: unknown) => reject(new Error(JSON.stringify(e))),
    });
  });
  channel.close();
  await events.closeAll();
  say({ closed: true });
} catch (e) {
  say({ error: e instanceof Error ? e.message : JSON.stringify(e) });
}
process.exit(0);
