/**
 * The AWS SDK's logger middleware runs on every request even with no logger set: it walks the
 * command's input and output through their schemas to mask sensitive fields for a log line that
 * the default no-op logger then drops. On the ingest's hundreds of requests a cycle that walk is a
 * few percent of its CPU. The service logs its own lines and sets no SDK logger, so the clients of
 * the hot paths (DynamoDB, S3) go without it.
 */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

export function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(
  client: T,
): T {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
