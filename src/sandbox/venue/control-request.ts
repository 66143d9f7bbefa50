/**
 * What every control route shares: the path below `/sandbox/` split into its parts, the checks of method and
 * body, and the mapping of a sandbox action's DltErrors to HTTP refusals.
 */
import type { z } from 'zod';
import { isDltError } from '../../core/errors.ts';
import type { ControlRequest } from '../api/http-server.ts';
import { badRequest, HttpError, notFound } from '../api/http-error.ts';

/** `/<family>/<first>/<second>/<rest...>` of a control request. */
export interface ControlPath {
  readonly family: string | undefined;
  readonly first: string | undefined;
  readonly second: string | undefined;
  readonly rest: readonly string[];
}

/** What a route answers for a path it does not serve: the request is a 404. */
export const NO_ROUTE: unique symbol = Symbol('no control route');

export function controlPath(req: ControlRequest): ControlPath {
  const [family, first, second, ...rest] = req.path.split('/').slice(1);
  return { family, first, second, rest };
}

export function noEndpoint(req: ControlRequest): HttpError {
  return notFound(`No control endpoint ${req.method} /sandbox${req.path}`);
}

export function body<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success)
    throw badRequest(
      'invalid request body',
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
    );
  return parsed.data;
}

export function allow(req: ControlRequest, method: 'GET' | 'POST' | 'DELETE'): void {
  if (req.method !== method)
    throw new HttpError(405, `${req.method} ${req.path}: use ${method}`, [], { allow: method });
}

/** Runs a sandbox action; its DltErrors become 400, 404 or 409. */
export async function act<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isDltError(e)) {
      if (e.details.notFound === true) throw notFound(e.message);
      throw new HttpError(e.details.conflict === true ? 409 : 400, e.message);
    }
    throw e;
  }
}
