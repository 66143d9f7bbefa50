/**
 * The market-data messages about subscriptions (see ws-client.ts): acknowledgements and refusals go to the
 * subscriptions, and what matches none of them is logged; a message of an unknown type is ignored.
 */
import type { Logger } from 'pino';
import { describeErrors, type MarketDataMessage } from './decode.ts';
import type { Subscriptions } from './subscriptions.ts';

/** Every message but the data, the tickers, the keep-alives and the connection's acknowledgement. */
export type ControlMessage = Exclude<MarketDataMessage, { type: 'data' | 'ticker' | 'ka' | 'connection_ack' }>;

export function handleControlMessage(message: ControlMessage, subscriptions: Subscriptions, logger: Logger): void {
  switch (message.type) {
    case 'subscribe_success':
      if (subscriptions.acknowledge(message.id) === undefined)
        logger.debug({ id: message.id }, 'subscribe_success for no pending subscription');
      return;
    case 'subscribe_error':
    case 'error': {
      const why = `${message.type}: ${describeErrors(message.errors)}`;
      if (message.id !== undefined && subscriptions.refuse(message.id, why)) return;
      logger.warn(
        { id: message.id, errors: message.errors, type: message.type },
        'market data error for no pending subscription',
      );
      return;
    }
    case 'unsubscribe_success':
      logger.debug({ id: message.id, channel: subscriptions.ended(message.id) }, 'unsubscribed');
      return;
    case 'unsubscribe_error':
      logger.warn(
        { id: message.id, channel: subscriptions.ended(message.id ?? ''), errors: message.errors },
        'venue refused an unsubscribe',
      );
      return;
    default:
      // A `connection_error` is the connection's own affair and does not come here.
      if (message.type === 'other')
        logger.debug({ type: message.name }, 'market data message of an unknown type ignored');
  }
}
