/**
 * The strategy files of the running bot: read at start, read again on reload (SIGHUP). A file that no longer
 * parses keeps its last good version and the problems are reported, so a typo never stops the quoting.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { parseStrategyConfig } from '../../core/config/load.ts';
import type { StrategyHandle } from './pair-loop.ts';

export class StrategyCatalog {
  readonly #read: (path: string) => string;
  readonly #handles = new Map<string, StrategyHandle>();

  constructor(read: (path: string) => string) {
    this.#read = read;
  }

  /** Loads a file the first time it is asked for; throws when it is invalid (at start, every problem listed). */
  load(path: string): StrategyHandle {
    const known = this.#handles.get(path);
    if (known !== undefined) return known;
    const handle = this.#parse(path);
    this.#handles.set(path, handle);
    return handle;
  }

  get(path: string): StrategyHandle {
    return this.load(path);
  }

  /** Reads every loaded file again; returns the problems of those that kept their previous version. */
  reload(): string[] {
    const problems: string[] = [];
    for (const path of this.#handles.keys()) {
      try {
        this.#handles.set(path, this.#parse(path));
      } catch (e) {
        problems.push(e instanceof Error ? e.message : String(e));
      }
    }
    return problems;
  }

  #parse(path: string): StrategyHandle {
    const text = this.#read(path);
    const config = parseStrategyConfig(text, path);
    return {
      name: basename(path).replace(/\.ya?ml$/, ''),
      hash: createHash('sha256').update(text).digest('hex').slice(0, 16),
      config,
    };
  }
}
