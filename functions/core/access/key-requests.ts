/**
 * Key requests from the site's request-a-key form (DESIGN.md section 5), and the account names
 * keys are issued to. Kept apart from keys.ts so the authorizer's bundle carries no zod.
 */
import * as z from 'zod';
import { randomBase62 } from './keys.ts';

/**
 * Characters that steer a terminal or reorder text rather than show: C0 controls, DEL, C1
 * controls (ESC sequences can clear an operator's screen or retitle the window), and the Unicode
 * bidirectional marks, overrides and isolates (which make a line read differently than it is).
 */
function isControl(codePoint: number, allowBreaks: boolean): boolean {
  if (allowBreaks && (codePoint === 0x09 || codePoint === 0x0a || codePoint === 0x0d)) return false;
  return (
    codePoint <= 0x1f ||
    (codePoint >= 0x7f && codePoint <= 0x9f) ||
    codePoint === 0x061c ||
    codePoint === 0x200e ||
    codePoint === 0x200f ||
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069)
  );
}

/** Whether `text` holds a control character (`allowBreaks`: tab and line breaks are fine). */
export function hasControlCharacters(text: string, allowBreaks = false): boolean {
  for (const c of text) if (isControl(c.codePointAt(0) ?? 0, allowBreaks)) return true;
  return false;
}

const NO_CONTROLS = 'must not contain control characters';

/** The refused characters as a regex class body (see `isControl`), for patterns the OpenAPI shows. */
const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** The same without tab, line feed and carriage return (allowed inside `use`). */
const CONTROLS_BUT_BREAKS =
  '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/**
 * A field without control characters once trimmed, as a pattern on the value sent: leading and
 * trailing white space (which the form's fields trim) may hold line breaks, nothing else may.
 * Equal to `!hasControlCharacters(value.trim(), allowBreaks)`; a test checks the two agree.
 */
export function noControlsPattern(allowBreaks = false): RegExp {
  return new RegExp(`^\\s*[^${allowBreaks ? CONTROLS_BUT_BREAKS : CONTROLS}]*\\s*$`);
}

/**
 * `text` with every control character written as a `\u` escape, for printing stored values to a
 * terminal (values stored before they were refused, or from another writer).
 */
export function printable(text: string): string {
  let out = '';
  for (const c of text) {
    const codePoint = c.codePointAt(0) ?? 0;
    out += isControl(codePoint, false) ? `\\u${codePoint.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

/** JSON whose strings carry no raw control character (JSON.stringify leaves C1 and bidi ones). */
export function printableJson(value: unknown): string {
  return printable(JSON.stringify(value));
}

/** Account names: what `keys create --account` and key approvals accept. */
export const AccountSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(120, 'is at most 120 characters')
  .regex(/^[^\s].*$/, 'must not start with a space')
  .refine((value) => !hasControlCharacters(value), NO_CONTROLS);

/** What the request-a-key form sends (JSON or form-encoded); `website` is the honeypot. */
export const KeyRequestInputSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(200, 'is at most 200 characters')
    .regex(noControlsPattern(), NO_CONTROLS),
  email: z
    .string()
    .trim()
    .max(320, 'is at most 320 characters')
    .regex(noControlsPattern(), NO_CONTROLS)
    .pipe(z.email('must be an email address')),
  organisation: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(200, 'is at most 200 characters')
    .regex(noControlsPattern(), NO_CONTROLS),
  use: z
    .string()
    .trim()
    .min(10, 'must be at least 10 characters')
    .max(2000, 'is at most 2000 characters')
    .regex(noControlsPattern(true), NO_CONTROLS),
  website: z
    .string()
    .max(500)
    .regex(/^\s*$/, 'must be empty')
    .optional()
    .describe(
      'The honeypot: a field people never see. Leave it out, empty or blank (white space only); anything else is refused as automated (400) and nothing is stored.',
    ),
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
