/**
 * Leaves before the index: a port listed by any published index always has its per-port
 * documents, so a listed port never answers 404, on the CDN path or the keyed one. Shown two ways:
 * a publish that breaks after any number of documents (a fault injected into the store), and a
 * user polling every listed port while the first cycle after an empty start runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHttpFeedSource } from '../../functions/adapters/http-feed/source.ts';
import { RSS_KEYS } from '../../functions/core/alerts/rss.ts';
import { runIngestCycle } from '../../functions/core/ingest/ingest.ts';
import type { DocumentStore } from '../../functions/core/stores.ts';
import { DOCUMENT_KEYS, portDocumentNames } from '../../functions/core/views/view-paths.ts';
import { startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { issueKey } from './keys.ts';
import { startStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');

interface Listed {
  ports?: { id: string; slug: string }[];
}

describe('a publish broken after any number of documents', () => {
  it.each([1, 3, 8, 20, 120])(
    'leaves no listed port without its documents (break after %i)',
    async (breakAfter) => {
      const clock = { now: () => AT };
      const dataDir = await mkdtemp(join(tmpdir(), 'border-waits-publish-'));
      const simulator = await startSimulator({ clock });
      const embedded = await startEmbeddedStores(dataDir, clock);
      try {
        const { documents } = embedded.stores;
        let written = 0;
        // Fault: the publisher dies after `breakAfter` documents (mocks only to inject faults).
        const breaking: DocumentStore = {
          get: (key) => documents.get(key),
          exists: (key) => documents.exists(key),
          put: async (key, body, meta) => {
            if (++written > breakAfter) throw new Error('injected: publish broke');
            return documents.put(key, body, meta);
          },
        };
        const sources = [
          createHttpFeedSource({ source: 'cbp', url: simulator.cbpXmlUrl, timeoutMs: 5_000 }),
          createHttpFeedSource({ source: 'cbsa', url: simulator.cbsaEnUrl, timeoutMs: 5_000 }),
        ];
        await expect(
          runIngestCycle({ ...embedded.stores, documents: breaking, sources, clock }),
        ).rejects.toThrow(/injected/);
        const listed = new Map<string, { id: string; slug: string }>();
        for (const key of [
          DOCUMENT_KEYS.ports('all'),
          DOCUMENT_KEYS.ports('mx'),
          DOCUMENT_KEYS.ports('ca'),
          DOCUMENT_KEYS.current(true),
        ]) {
          const index = await documents.get(key);
          for (const port of (index ? (JSON.parse(index.body) as Listed) : {}).ports ?? [])
            listed.set(port.id, port);
        }
        const missing: string[] = [];
        for (const port of listed.values()) {
          for (const key of [
            ...portDocumentNames(port).flatMap((name) => [
              DOCUMENT_KEYS.averages(name),
              DOCUMENT_KEYS.forecast(name),
            ]),
            RSS_KEYS.port(port.slug),
          ]) {
            if (!(await documents.get(key))) missing.push(key);
          }
        }
        expect(missing).toEqual([]);
      } finally {
        await simulator.stop();
        await embedded.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe('the first cycle after an empty start', () => {
  it('never answers 404 for a listed port, keyless or keyed', async () => {
    // Limits out of the way: this polls every listed port, keyless and keyed, many times.
    const stack = await startStack({
      atMs: AT,
      env: { KEY_RATE_LIMIT_PER_MINUTE: '1000000', EDGE_RATE_LIMIT_PER_MINUTE: '1000000' },
    });
    try {
      const { key } = await issueKey(stack);
      const keyed = { headers: { 'x-api-key': key } };
      // Before any publish the keyed API knows the catalogued ports (a known port with no aggregates
      // yet: the empty list) and no other; it must not remember that once the list is published.
      const early = await stack.json<unknown[]>('/api/v1/port-hourly-averages?port_id=250401', keyed);
      expect(early.status).toBe(200);
      expect(early.body).toEqual([]);
      expect((await stack.get('/api/v1/port-hourly-averages?port_id=259901', keyed)).status).toBe(404);
      let done = false;
      const cycle = stack.service.ingestNow().finally(() => {
        done = true;
      });
      const answers: string[] = [];
      let polls = 0;
      // Poll as a user would until the cycle is over, then once more.
      for (let last = false; !last; last = done) {
        polls++;
        const list = await stack.get('/api/v1/port-current?include=ports');
        if (list.status !== 200) {
          await list.body?.cancel();
          continue;
        }
        const { ports = [] } = (await list.json()) as Listed;
        for (const port of ports) {
          for (const id of [port.id, port.slug]) {
            const path = `/api/v1/port-hourly-averages?port_id=${id}`;
            const [cdn, api] = await Promise.all([stack.get(path), stack.get(path, keyed)]);
            await Promise.all([cdn.body?.cancel(), api.body?.cancel()]);
            if (cdn.status !== 200 || api.status !== 200)
              answers.push(`${path}: cdn ${cdn.status}, keyed ${api.status}`);
          }
        }
      }
      await cycle;
      expect(polls).toBeGreaterThan(0);
      expect(answers).toEqual([]);
      const after = await stack.json<unknown[]>('/api/v1/port-hourly-averages?port_id=250401', keyed);
      expect(after.status).toBe(200);
      expect(Array.isArray(after.body)).toBe(true);
    } finally {
      await stack.stop();
    }
  }, 180_000);
});
