/**
 * Secrets read at run time (the webhook signing key, the CDN's origin secret), never kept in a
 * function's environment. Owned by the core; Secrets Manager in AWS, files under DATA_DIR locally.
 */
export interface SecretSource {
  /**
   * The values a secret accepts now: the current one first, then the previous one while a rotation
   * is under way (so a caller still presenting the old value is not refused mid-rotation).
   * Rejects when the secret store cannot be reached.
   */
  values(id: string): Promise<string[]>;
}

/** The current value of a secret. */
export async function currentSecret(source: SecretSource, id: string): Promise<string> {
  const [current] = await source.values(id);
  if (!current) throw new Error(`secret ${id} has no value`);
  return current;
}
