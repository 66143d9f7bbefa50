/**
 * Faults the REST API injects on demand (control endpoint `/sandbox/faults/rest`): for the calls whose path
 * (below `/api/v1`) matches a pattern, answer 429 (with `Retry-After`) or a 5xx instead, and/or answer late.
 * A rule applies to the next `count` matching calls, or to each matching call with probability `rate`, or
 * both (the first `count` calls picked by the rate), or to every matching call until cleared.
 */
import { z } from 'zod';

export const restFaultSchema = z.strictObject({
  /** Glob on the path below `/api/v1`; `*` matches any run of characters. Default: every endpoint. */
  path: z.string().min(1).max(255).default('*'),
  status: z.union([z.literal(429), z.number().int().min(500).max(599)]).optional(),
  count: z.number().int().min(1).max(1_000_000).optional(),
  rate: z.number().min(0).max(1).optional(),
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  delayMs: z.number().int().min(0).max(120_000).optional(),
});

export type RestFaultSpec = z.input<typeof restFaultSchema>;

export interface RestFaultRule {
  readonly id: number;
  readonly path: string;
  readonly status?: number;
  readonly rate?: number;
  readonly retryAfterSeconds?: number;
  readonly delayMs?: number;
  /** Calls still to hit; undefined for no limit. */
  remaining?: number;
  hits: number;
}

export interface FaultDecision {
  readonly delayMs: number;
  readonly status?: number;
  readonly headers: Record<string, string>;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

export class RestFaults {
  readonly #random: () => number;
  #rules: (RestFaultRule & { readonly re: RegExp })[] = [];
  #nextId = 1;

  constructor(random: () => number) {
    this.#random = random;
  }

  add(spec: RestFaultSpec): RestFaultRule {
    const s = restFaultSchema.parse(spec);
    const rule = {
      id: this.#nextId++,
      path: s.path,
      re: globToRegExp(s.path),
      hits: 0,
      ...(s.status === undefined ? {} : { status: s.status }),
      ...(s.rate === undefined ? {} : { rate: s.rate }),
      ...(s.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: s.retryAfterSeconds }),
      ...(s.delayMs === undefined ? {} : { delayMs: s.delayMs }),
      ...(s.count === undefined ? {} : { remaining: s.count }),
    };
    this.#rules.push(rule);
    return this.#view(rule);
  }

  clear(): void {
    this.#rules = [];
  }

  list(): RestFaultRule[] {
    return this.#rules.map((r) => this.#view(r));
  }

  /** What to do with a call to `path`; consumes the rules that fire. */
  decide(path: string): FaultDecision {
    let delayMs = 0;
    let status: number | undefined;
    const headers: Record<string, string> = {};
    for (const r of this.#rules) {
      if (!r.re.test(path)) continue;
      if (r.rate !== undefined && this.#random() >= r.rate) continue;
      if (r.remaining !== undefined) r.remaining -= 1;
      r.hits += 1;
      delayMs = Math.max(delayMs, r.delayMs ?? 0);
      if (status === undefined && r.status !== undefined) {
        status = r.status;
        if (r.retryAfterSeconds !== undefined && (r.status === 429 || r.status === 503))
          headers['retry-after'] = String(r.retryAfterSeconds);
      }
    }
    this.#rules = this.#rules.filter((r) => r.remaining === undefined || r.remaining > 0);
    return status === undefined ? { delayMs, headers } : { delayMs, status, headers };
  }

  #view(r: RestFaultRule): RestFaultRule {
    const { re: _re, ...rest } = r as RestFaultRule & { re?: RegExp };
    return { ...rest };
  }
}
