/**
 * Prometheus metrics of one bot instance. Each instance owns its own Registry (never prom-client's global
 * one), so tests and side-by-side bots never collide. Every name starts with `dltmm_`; other modules add
 * theirs through `counter`/`gauge`/`histogram`, which apply the prefix and return the existing metric when
 * the same name is registered twice (a module built twice shares its series instead of crashing).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createVenueMetrics, type VenueMetrics } from './venue-metrics.ts';

export const METRIC_PREFIX = 'dltmm_';

export interface MetricDefinition<L extends string> {
  /** With or without the `dltmm_` prefix; it is added when missing. */
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
}

export interface HistogramDefinition<L extends string> extends MetricDefinition<L> {
  readonly buckets?: readonly number[];
}

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag) under the same prefix; off by default for tests. */
  readonly processMetrics?: boolean;
  /** Labels added to every series, e.g. `{ bot: 'mm-1' }`. */
  readonly defaultLabels?: Readonly<Record<string, string>>;
}

/** One series of a gauge read at scrape time. */
export interface GaugeSample<L extends string> {
  readonly labels: Partial<Record<L, string>>;
  readonly value: number;
}

export function prefixed(name: string): string {
  return name.startsWith(METRIC_PREFIX) ? name : `${METRIC_PREFIX}${name}`;
}

export class Metrics {
  readonly registry: Registry;
  /** The series the REST and WebSocket venue clients write. */
  readonly venue: VenueMetrics;
  readonly #sources = new Map<string, Array<() => Iterable<GaugeSample<string>>>>();

  constructor(options: MetricsOptions = {}) {
    this.registry = new Registry();
    if (options.defaultLabels !== undefined) this.registry.setDefaultLabels(options.defaultLabels);
    if (options.processMetrics === true) collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    this.venue = createVenueMetrics(this.registry);
  }

  counter<L extends string = never>(def: MetricDefinition<L>): Counter<L> {
    return this.#existing(def.name, Counter) ?? new Counter({ ...this.#base(def), registers: [this.registry] });
  }

  gauge<L extends string = never>(def: MetricDefinition<L>): Gauge<L> {
    return this.#existing(def.name, Gauge) ?? new Gauge({ ...this.#base(def), registers: [this.registry] });
  }

  /**
   * A gauge whose series are read at every scrape from their sources (the store, a loop's state), so it is
   * right whenever it is read, not only after the last event that set it. Each call adds a source; the gauge
   * shows the union of every source's samples.
   */
  derivedGauge<L extends string = never>(def: MetricDefinition<L>, source: () => Iterable<GaugeSample<L>>): void {
    const name = prefixed(def.name);
    let sources = this.#sources.get(name);
    if (sources === undefined) {
      const all: Array<() => Iterable<GaugeSample<string>>> = [];
      sources = all;
      this.#sources.set(name, all);
      const gauge = new Gauge({
        ...this.#base(def),
        registers: [],
        collect() {
          this.reset();
          for (const read of all)
            for (const s of read()) this.set(s.labels as Partial<Record<string, string>>, s.value);
        },
      });
      this.registry.registerMetric(gauge);
    }
    sources.push(source as () => Iterable<GaugeSample<string>>);
  }

  histogram<L extends string = never>(def: HistogramDefinition<L>): Histogram<L> {
    const existing = this.#existing(def.name, Histogram);
    if (existing !== undefined) return existing as Histogram<L>;
    return new Histogram({
      ...this.#base(def),
      ...(def.buckets === undefined ? {} : { buckets: [...def.buckets] }),
      registers: [this.registry],
    });
  }

  /** The exposition text for `/metrics`. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #base<L extends string>(def: MetricDefinition<L>): { name: string; help: string; labelNames: L[] } {
    return { name: prefixed(def.name), help: def.help, labelNames: [...(def.labelNames ?? [])] };
  }

  // oxlint-disable-next-line typescript/no-explicit-any -- prom-client's constructors are generic over labels
  #existing<T>(name: string, kind: abstract new (...args: any[]) => T): T | undefined {
    const found = this.registry.getSingleMetric(prefixed(name));
    if (found === undefined) return undefined;
    if (!(found instanceof kind))
      throw new TypeError(`metric ${prefixed(name)} is already registered with another type`);
    return found;
  }
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  return new Metrics(options);
}
