/** Reads one series of a bot's metrics, for assertions. */
import type { Metrics } from '../../../src/telemetry/metrics.ts';

export async function metricValue(
  metrics: Metrics,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const match = values
    .filter((v) => !('metricName' in v && v.metricName !== undefined && v.metricName !== name))
    .find((v) =>
      Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
    );
  return match?.value ?? 0;
}
