/**
 * The strategy files of the running bot: read at start, read again on reload (SIGHUP). A file that no longer
 * parses keeps its last good version and the problems are reported, so a typo never stops the quoting. Every
 * version accepted (the first load, and each reload that changed the file) is handed to `accepted` with the
 * keys that changed, for the record of parameter changes.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { changedKeys, type ChangedKey } from '../../core/config/changed-keys.ts';
import { parseStrategyConfig } from '../../core/config/load.ts';
import type { StrategyHandle } from './pair-loop.ts';

export interface AcceptedStrategy {
  readonly file: string;
  /** null for the first load. */
  readonly oldHash: string | null;
  readonly newHash: string;
  readonly changes: readonly ChangedKey[];
}

export class StrategyCatalog {
  readonly #read: (path: string) => string;
  readonly #accepted: (a: AcceptedStrategy) => void;
  readonly #handles = new Map<string, StrategyHandle>();

  constructor(read: (path: string) => string, accepted: (a: AcceptedStrategy) => void = () => undefined) {
    this.#read = read;
    this.#accepted = accepted;
  }

  /** Loads a file the first time it is asked for; throws when it is invalid (at start, every problem listed). */
  load(path: string): StrategyHandle {
    const known = this.#handles.get(path);
    if (known !== undefined) return known;
    const handle = this.#parse(path);
    this.#handles.set(path, handle);
    this.#accepted({ file: path, oldHash: null, newHash: handle.hash, changes: changedKeys({}, handle.config) });
    return handle;
  }

  get(path: string): StrategyHandle {
    return this.load(path);
  }

  /** Reads every loaded file again; returns the problems of those that kept their previous version. */
  reload(): string[] {
    const problems: string[] = [];
    for (const [path, before] of this.#handles) {
      try {
        const after = this.#parse(path);
        this.#handles.set(path, after);
        if (after.hash !== before.hash)
          this.#accepted({
            file: path,
            oldHash: before.hash,
            newHash: after.hash,
            changes: changedKeys(before.config, after.config),
          });
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
