/**
 * Conditional GETs through the local edge: it compares validators itself, as CloudFront does
 * against its cached copy, and leaves no file of the S3 stand-in open (s3rver leaks the object's
 * file on every 304 it answers itself, which a long-running `npm start` would feel).
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');
let stack: TestStack;

/** Descriptors of this process open on files under `folder` (Linux). */
function openFilesUnder(folder: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(folder));
}

/**
 * Open files under `folder` once those of answers just sent have had a moment to close: a read
 * stream closes its descriptor a little after the response ends, while a leaked one stays open.
 */
async function settledOpenFilesUnder(folder: string, atMost: number): Promise<number> {
  for (let i = 0; i < 50 && openFilesUnder(folder).length > atMost; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return openFilesUnder(folder).length;
}

beforeAll(async () => {
  stack = await startStack({ atMs: AT });
  await stack.service.ingestNow();
});
afterAll(() => stack?.stop());

describe('conditional requests at the edge', () => {
  it.each(['/api/v1/ports', '/api/v1/port-current?include=ports', '/v1/feed-health.json'])(
    'answers 40 matching If-None-Match on %s with 304 and keeps no file open',
    async (path) => {
      const s3Folder = join(stack.service.dataDir, 's3');
      const first = await stack.get(path);
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      expect(first.status).toBe(200);
      expect(etag).toBeTruthy();
      const before = openFilesUnder(s3Folder).length;
      for (let i = 0; i < 40; i += 1) {
        const again = await stack.get(path, {
          headers: { 'if-none-match': i % 2 === 0 ? (etag as string) : `"other", W/${etag}` },
        });
        expect(again.status).toBe(304);
        expect(again.headers.get('etag')).toBe(etag);
        expect(await again.text()).toBe('');
      }
      expect(await settledOpenFilesUnder(s3Folder, before)).toBeLessThanOrEqual(before);
    },
  );

  it('answers If-Modified-Since with 304 when not modified since, and 200 when it was', async () => {
    const first = await stack.get('/api/v1/ports');
    await first.arrayBuffer();
    const lastModified = first.headers.get('last-modified') as string;
    const same = await stack.get('/api/v1/ports', { headers: { 'if-modified-since': lastModified } });
    expect(same.status).toBe(304);
    await same.arrayBuffer();
    const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    const older = await stack.get('/api/v1/ports', { headers: { 'if-modified-since': earlier } });
    expect(older.status).toBe(200);
    expect(((await older.json()) as { count: number }).count).toBeGreaterThan(0);
  });

  it('answers a stale ETag with the whole document', async () => {
    const response = await stack.get('/api/v1/ports', { headers: { 'if-none-match': '"not-the-etag"' } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { count: number }).count).toBeGreaterThan(0);
  });
});
