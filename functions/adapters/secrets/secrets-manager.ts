/**
 * Secrets Manager as a SecretSource: `AWSCURRENT` and, when a rotation left one, `AWSPREVIOUS`,
 * cached per warm function for `ttlMs` so a request costs no API call. A failed read is not
 * cached: the next call tries again. The endpoint comes from `AWS_ENDPOINT_URL_SECRETS_MANAGER`
 * when set (the SDK reads it).
 *
 * The SDK client module is imported on the first read, not when the function loads: the mcp
 * function reads a secret only for alert tools, so its other cold starts never load it. The
 * authorizers, which read one on every request, load it at init (`preloadSecretsManager`); the
 * ingest starts loading it when its first cycle starts, long before the cycle signs an alert.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretSource } from '../../core/secrets.ts';

const sdk = () => import('@aws-sdk/client-secrets-manager');

/**
 * Loads the SDK client module now, ahead of the first read: at init for the authorizers, where
 * loading it on first use would only move the cost into the first request.
 */
export async function preloadSecretsManager(): Promise<void> {
  await sdk();
}

export const SECRET_CACHE_MS = 5 * 60_000;

export function createSecretsManagerSource(
  options: { client?: SecretsManagerClient; ttlMs?: number; now?: () => number } = {},
): SecretSource {
  let client: Promise<SecretsManagerClient> | undefined;
  const clientOf = () =>
    (client ??= options.client
      ? Promise.resolve(options.client)
      : sdk().then(({ SecretsManagerClient }) => new SecretsManagerClient({ maxAttempts: 3 })));
  const ttlMs = options.ttlMs ?? SECRET_CACHE_MS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { atMs: number; values: Promise<string[]> }>();

  async function stage(id: string, versionStage: string): Promise<string | null> {
    const { GetSecretValueCommand, ResourceNotFoundException } = await sdk();
    try {
      const out = await (await clientOf()).send(
        new GetSecretValueCommand({ SecretId: id, VersionStage: versionStage }),
      );
      return out.SecretString ?? null;
    } catch (error: unknown) {
      // A secret never rotated has no AWSPREVIOUS version.
      if (versionStage === 'AWSPREVIOUS' && error instanceof ResourceNotFoundException) return null;
      throw error;
    }
  }

  return {
    values(id) {
      const hit = cache.get(id);
      const at = now();
      if (hit && at - hit.atMs < ttlMs) return hit.values;
      const values = Promise.all([stage(id, 'AWSCURRENT'), stage(id, 'AWSPREVIOUS')]).then(
        ([current, previous]) => {
          if (!current) throw new Error(`secret ${id} has no current string value`);
          return previous && previous !== current ? [current, previous] : [current];
        },
      );
      cache.set(id, { atMs: at, values });
      values.catch(() => cache.delete(id));
      return values;
    },
  };
}
