/**
 * Structured logs with the Powertools for AWS Lambda logger: one logger per function, built once
 * per cold start, writing JSON lines that CloudWatch Logs indexes by field. The local runtime and
 * the command line pass their own `log` (plain lines for a person at a console).
 */
import { Logger } from '@aws-lambda-powertools/logger';

export interface TelemetryOptions {
  /** Plain log lines instead of Powertools JSON (the local runtime's console). */
  log?: (line: string) => void;
}

export interface Telemetry {
  /** One log line, with structured fields. */
  log(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error: unknown): void;
}

export function createTelemetry(serviceName: string, options: TelemetryOptions = {}): Telemetry {
  const plain = options.log;
  if (plain) {
    return {
      log: (message, fields) => plain(fields ? `${message} ${JSON.stringify(fields)}` : message),
      error: (message, error) =>
        plain(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    };
  }
  const logger = new Logger({ serviceName });
  return {
    log: (message, fields) => logger.info(message, fields ?? {}),
    error: (message, error) => logger.error(message, error instanceof Error ? error : String(error)),
  };
}
