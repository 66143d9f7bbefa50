/** The fair-value series on /metrics, read at every scrape from each pair's last verdict. */
import type { Metrics } from '../../telemetry/metrics.ts';
import { GUARDS } from './guards.ts';
import type { PairFairValue } from './pair-fair-value.ts';

export function deriveFairValueGauges(m: Metrics, pairs: () => Iterable<PairFairValue>): void {
  const verdicts = () => [...pairs()].flatMap((p) => (p.last === null ? [] : [{ pair: p.pairId, v: p.last }]));
  m.derivedGauge(
    {
      name: 'fair_value',
      help: 'Fair value (quote per base): source="fair" the combined value the strategy uses, otherwise each source\'s last value',
      labelNames: ['pair', 'source'],
    },
    () =>
      verdicts().flatMap(({ pair, v }) => [
        ...(v.value === null ? [] : [{ labels: { pair, source: 'fair' }, value: v.value.toNumber() }]),
        ...v.combined.sources.flatMap((s) =>
          s.value === null ? [] : [{ labels: { pair, source: s.kind }, value: s.value.toNumber() }],
        ),
      ]),
  );
  m.derivedGauge(
    {
      name: 'fair_value_age_seconds',
      help: "Age of each fair-value source's value, by the time it describes",
      labelNames: ['pair', 'source'],
    },
    () =>
      verdicts().flatMap(({ pair, v }) =>
        v.combined.sources.flatMap((s) =>
          s.ageMs === null ? [] : [{ labels: { pair, source: s.kind }, value: s.ageMs / 1000 }],
        ),
      ),
  );
  m.derivedGauge(
    {
      name: 'fair_value_source_usable',
      help: '1 while the fair-value source is usable (read, not older than its maximum age, positive)',
      labelNames: ['pair', 'source'],
    },
    () =>
      verdicts().flatMap(({ pair, v }) =>
        v.combined.sources.map((s) => ({ labels: { pair, source: s.kind }, value: s.usable ? 1 : 0 })),
      ),
  );
  m.derivedGauge(
    {
      name: 'fair_value_guard',
      help: '1 while the fair-value guard holds (unavailable, dispersion, deviation, jump)',
      labelNames: ['pair', 'guard'],
    },
    () =>
      verdicts().flatMap(({ pair, v }) =>
        GUARDS.map((g) => ({ labels: { pair, guard: g }, value: v.guards.has(g) ? 1 : 0 })),
      ),
  );
  m.derivedGauge(
    {
      name: 'fair_value_deviation_bps',
      help: "Fair value against the mid of others' book, basis points of the mid",
      labelNames: ['pair'],
    },
    () =>
      verdicts().flatMap(({ pair, v }) =>
        v.deviationBps === null ? [] : [{ labels: { pair }, value: v.deviationBps.toNumber() }],
      ),
  );
}
