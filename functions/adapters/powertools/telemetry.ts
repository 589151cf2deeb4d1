/**
 * Structured logs and EMF metrics with Powertools for AWS Lambda: one logger and one metrics
 * buffer per function, built once per cold start. In Lambda both go to CloudWatch Logs as JSON
 * lines, where the embedded metric format turns the metric lines into CloudWatch metrics. The
 * local runtime passes its own `log` (plain lines on its console) and `metricsOutput`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from '../../core/metrics.ts';

export interface TelemetryOptions {
  /** Plain log lines instead of Powertools JSON (the local runtime's console). */
  log?: (line: string) => void;
  /** Where each EMF document goes instead of stdout (the local runtime, tests). */
  metricsOutput?: (emf: string) => void;
}

export interface Telemetry {
  /** One log line, with structured fields. */
  log(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error: unknown): void;
  /** Adds a count to this invocation's metrics. */
  count(name: string, value: number): void;
  /** Writes this invocation's metrics (one EMF document) and clears them. */
  flush(): void;
}

export function createTelemetry(serviceName: string, options: TelemetryOptions = {}): Telemetry {
  const logger = options.log ? undefined : new Logger({ serviceName });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });
  return {
    log(message, fields) {
      if (logger) logger.info(message, fields ?? {});
      else options.log?.(fields ? `${message} ${JSON.stringify(fields)}` : message);
    },
    error(message, error) {
      if (logger) logger.error(message, error instanceof Error ? error : String(error));
      else
        options.log?.(
          `${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
    },
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
