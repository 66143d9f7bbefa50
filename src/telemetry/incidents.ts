/**
 * Incidents: a failure that repeats (a node down, the venue answering 503, the WebSocket dropping) is logged
 * once when it starts, counted while it lasts (a reminder every `remindMs`), and ended by one line with the
 * count, the duration and what failed, once the thing has worked for `quietMs` after its last failure (an
 * intermittent fault does not flap the log). Every component of a process reports into one registry, kept
 * on the root of its pino logger (child loggers inherit it), so four pairs failing the same way, or a
 * follower and a receipt poller on one node, make one incident of one kind.
 *
 * An expected transport error (the venue's and the chains' typed errors, a network error with a code) is
 * logged by code and reason; only an error nobody expected carries its stack.
 */
import { pino } from 'pino';
import { isDltError } from '../core/errors.ts';
import type { Logger } from './logger.ts';

export const INCIDENT_QUIET_MS = 10_000;
export const INCIDENT_REMIND_MS = 180_000;

const REGISTRY = Symbol.for('dlt-mm.incidents');

/** Codes of the venue's and the chains' transports failing (not of a refusal that means something). */
const TRANSPORT_CODES = new Set([
  'E_CHAIN_RPC',
  'E_REST_TIMEOUT',
  'E_REST_TRANSPORT',
  'E_REST_UNAVAILABLE',
  'E_WS_CONNECTION',
]);

export function isTransportFailure(code: string): boolean {
  return TRANSPORT_CODES.has(code);
}

/** Log fields of an error: typed and coded transport errors by code and reason; anything else whole. */
export function failureFields(e: unknown): Record<string, unknown> {
  if (isDltError(e)) return { code: e.code, reason: e.message };
  if (
    !(e instanceof Error) &&
    typeof e === 'object' &&
    e !== null &&
    typeof (e as { reason?: unknown }).reason === 'string'
  )
    return { code: (e as { code?: unknown }).code ?? null, reason: (e as { reason: string }).reason };
  if (e instanceof Error && typeof (e as { code?: unknown }).code === 'string')
    return { code: (e as Error & { code: string }).code, reason: firstLine(e.message) };
  if (e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError'))
    return { code: e.name, reason: firstLine(e.message) };
  if (e instanceof TypeError && e.message === 'fetch failed') {
    const cause = (e as { cause?: unknown }).cause;
    return { code: 'FETCH_FAILED', reason: cause instanceof Error ? firstLine(cause.message) : e.message };
  }
  return { err: e };
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

interface Open {
  count: number;
  readonly firstMs: number;
  lastFailedMs: number;
  lastLoggedMs: number;
  lastReason: Record<string, unknown>;
  readonly byWhat: Map<string, number>;
}

class Registry {
  readonly open = new Map<string, Open>();
  readonly quietMs: number;
  readonly remindMs: number;
  constructor(quietMs: number, remindMs: number) {
    this.quietMs = quietMs;
    this.remindMs = remindMs;
  }
}

export interface IncidentOptions {
  readonly quietMs?: number;
  readonly remindMs?: number;
}

/** One component's face of its process's incidents: it logs through the component's own logger. */
export class Incidents {
  readonly #logger: Logger;
  readonly #registry: Registry;

  constructor(logger: Logger, registry: Registry) {
    this.#logger = logger;
    this.#registry = registry;
  }

  /**
   * `kind`: what failed, as an operator names it (`chain A node`, `venue REST`); `what`: the part that saw it
   * (`follower round`, a pair); both are in the lines.
   */
  failed(kind: string, nowMs: number, what: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const reason = failureFields(error);
    const open = this.#registry.open.get(kind);
    if (open === undefined) {
      this.#registry.open.set(kind, {
        count: 1,
        firstMs: nowMs,
        lastFailedMs: nowMs,
        lastLoggedMs: nowMs,
        lastReason: reason,
        byWhat: new Map([[what, 1]]),
      });
      this.#logger.warn({ incident: kind, what, ...fields, ...reason }, `${kind} failing`);
      return;
    }
    open.count += 1;
    open.lastFailedMs = nowMs;
    open.lastReason = reason;
    open.byWhat.set(what, (open.byWhat.get(what) ?? 0) + 1);
    if (nowMs - open.lastLoggedMs < this.#registry.remindMs) return;
    open.lastLoggedMs = nowMs;
    this.#logger.warn(
      { incident: kind, what, ...fields, ...reason, failures: open.count, forMs: nowMs - open.firstMs },
      `${kind} still failing`,
    );
  }

  /** The thing worked: the incident of `kind` ends once nothing failed for the quiet time. */
  succeeded(kind: string, nowMs: number): void {
    const open = this.#registry.open.get(kind);
    if (open === undefined || nowMs - open.lastFailedMs < this.#registry.quietMs) return;
    this.#end(kind, open);
  }

  /** The thing worked and says so once (a reconciliation): the incident of `kind` ends now. */
  ended(kind: string): void {
    const open = this.#registry.open.get(kind);
    if (open !== undefined) this.#end(kind, open);
  }

  #end(kind: string, open: Open): void {
    this.#registry.open.delete(kind);
    this.#logger.info(
      {
        incident: kind,
        failures: open.count,
        forMs: open.lastFailedMs - open.firstMs,
        by: Object.fromEntries(open.byWhat),
        last: open.lastReason,
      },
      `${kind} working again`,
    );
  }

  /** How many failures the open incident of `kind` counts (0 when none is open). */
  count(kind: string): number {
    return this.#registry.open.get(kind)?.count ?? 0;
  }
}

/**
 * The incidents of `logger`'s process: the registry lives on the root logger (found through pino's child
 * chain), created on first use with `options`.
 */
export function incidentsOf(logger: Logger, options: IncidentOptions = {}): Incidents {
  const root = rootOf(logger) as Logger & { [REGISTRY]?: Registry };
  let registry = root[REGISTRY];
  if (registry === undefined) {
    registry = new Registry(options.quietMs ?? INCIDENT_QUIET_MS, options.remindMs ?? INCIDENT_REMIND_MS);
    Object.defineProperty(root, REGISTRY, { value: registry, enumerable: false });
  }
  return new Incidents(logger, registry);
}

/** The pino instance a child logger descends from: the last of the prototype chain with bindings of its own. */
function rootOf(logger: Logger): object {
  const own = pino.symbols.chindingsSym;
  let root: object = logger;
  for (
    let p = Object.getPrototypeOf(logger) as object | null;
    p !== null;
    p = Object.getPrototypeOf(p) as object | null
  )
    if (Object.prototype.hasOwnProperty.call(p, own)) root = p;
  return root;
}

/** The incident kinds of the chains' nodes (everything that reads or sends through one). */
export const CHAIN_NODE = { evm: 'chain A node', wasm: 'chain B node' } as const;

/** One round of a poll loop: its failure is `kind`'s incident, its success may end it; the loop goes on. */
export async function reportedRound(
  logger: Logger,
  clock: { now(): number },
  kind: string,
  what: string,
  round: () => Promise<unknown>,
): Promise<void> {
  const incidents = incidentsOf(logger);
  try {
    await round();
    incidents.succeeded(kind, clock.now());
  } catch (e) {
    incidents.failed(kind, clock.now(), what, e);
  }
}
