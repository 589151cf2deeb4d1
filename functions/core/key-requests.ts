/**
 * Key requests from the site's request-a-key form (DESIGN.md section 5), and the account names
 * keys are issued to. Kept apart from keys.ts so the authorizer's bundle carries no zod.
 */
import * as z from 'zod';
import { randomBase62 } from './keys.ts';

/** Account names: what `keys create --account` and key approvals accept. */
export const AccountSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(120, 'is at most 120 characters')
  .regex(/^[^\s].*$/, 'must not start with a space');

/** What the request-a-key form sends (JSON or form-encoded); `website` is the honeypot. */
export const KeyRequestInputSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(200, 'is at most 200 characters'),
  email: z.string().trim().max(320, 'is at most 320 characters').pipe(z.email('must be an email address')),
  organisation: z.string().trim().min(1, 'is required').max(200, 'is at most 200 characters'),
  use: z.string().trim().min(10, 'must be at least 10 characters').max(2000, 'is at most 2000 characters'),
  website: z.string().max(500).optional().describe('Leave empty (a field humans do not see)'),
});

export type KeyRequestInput = z.infer<typeof KeyRequestInputSchema>;

export interface KeyRequest {
  id: string;
  name: string;
  email: string;
  organisation: string;
  use: string;
  createdAt: string;
  status: 'pending' | 'approved';
  /** The key issued for it, once approved. */
  keyId: string | null;
}

export interface KeyRequestStore {
  putRequest(request: KeyRequest): Promise<void>;
  getRequest(id: string): Promise<KeyRequest | null>;
  listRequests(): Promise<KeyRequest[]>;
  /** Marks the request approved with the key issued for it. */
  approveRequest(id: string, keyId: string): Promise<void>;
}

/** A new pending request from validated input. */
export function newKeyRequest(input: KeyRequestInput, nowMs: number): KeyRequest {
  return {
    id: `req_${randomBase62(12)}`,
    name: input.name,
    email: input.email,
    organisation: input.organisation,
    use: input.use,
    createdAt: new Date(nowMs).toISOString(),
    status: 'pending',
    keyId: null,
  };
}
