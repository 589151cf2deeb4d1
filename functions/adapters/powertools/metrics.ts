/**
 * EMF metrics with the Powertools for AWS Lambda metrics utility: counts buffered during an
 * invocation and written as one embedded-metric-format line, which CloudWatch turns into metrics
 * in the service's namespace (dimension `service`). The stack's alarms read them.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from '../../core/metrics.ts';

export interface MetricsOptions {
  /** Where each EMF document goes instead of stdout (the local runtime, tests). */
  metricsOutput?: (emf: string) => void;
}

export interface MetricsSink {
  /** Adds a count to this invocation's metrics. */
  count(name: string, value: number): void;
  /** Writes this invocation's metrics (one EMF document) and clears them. */
  flush(): void;
}

export function createMetrics(serviceName: string, options: MetricsOptions = {}): MetricsSink {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });
  return {
    count(name, value) {
      metrics.addMetric(name, MetricUnit.Count, value);
    },
    flush() {
      if (!metrics.hasStoredMetrics()) return;
      if (!options.metricsOutput) {
        metrics.publishStoredMetrics();
        return;
      }
      options.metricsOutput(JSON.stringify(metrics.serializeMetrics()));
      metrics.clearMetrics();
    },
  };
}
