/**
 * Attributes as DynamoDB's JSON protocol carries them, for the forecast bench's store traffic: the
 * lanes as a map (marshalled, as stored before), and a packed attribute (binary is base64).
 */
import { marshall } from '@aws-sdk/util-dynamodb';

/** `{ lanes }` as a map item's wire JSON. */
export const mapWire = (lanes: unknown): string =>
  JSON.stringify(marshall({ lanes }, { removeUndefinedValues: true }));

/** A packed attribute's wire JSON. */
export const packedWire = (bytes: Uint8Array): string =>
  JSON.stringify({ B: Buffer.from(bytes).toString('base64') });

/** The bytes of a packed attribute's wire JSON. */
export const fromPackedWire = (wire: string): Buffer =>
  Buffer.from((JSON.parse(wire) as { B: string }).B, 'base64');
