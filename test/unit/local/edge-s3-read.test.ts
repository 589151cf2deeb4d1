/**
 * The local edge against an S3 stand-in that fails: as CloudFront does with an S3 origin, it reads
 * once and answers S3's failure (the stand-in replaces objects atomically, so a read never meets
 * half a write: `test/integration/local-s3.test.ts`). Faults are injected by a small HTTP server in
 * place of s3rver.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEdge } from '../../../infra/local/edge.ts';

type Answer = 'error' | 'whole';
const DOCUMENT = JSON.stringify({ generatedAt: '2026-11-18T17:10:00Z', sources: [] });

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A stand-in answering each read with the next of `answers` (the last one repeats). */
async function flakyS3(answers: Answer[]): Promise<{ url: string; reads: () => number }> {
  let reads = 0;
  const url = await listen((_req, res) => {
    const answer = answers[Math.min(reads, answers.length - 1)];
    reads += 1;
    if (answer === 'error') {
      res.writeHead(500, { 'content-type': 'application/xml' });
      res.end('<Error><Code>InternalError</Code></Error>');
    } else {
      res.writeHead(200, { 'content-type': 'application/json', etag: '"e1"' });
      res.end(DOCUMENT);
    }
  });
  return { url, reads: () => reads };
}

async function edgeOn(s3Endpoint: string): Promise<string> {
  const edge = createEdge({ s3Endpoint, api: async () => undefined, log: () => undefined });
  return listen((req, res) => void edge(req, res));
}

describe('the local edge reading from the S3 stand-in', () => {
  it('answers the whole object in one read', async () => {
    const s3 = await flakyS3(['whole']);
    const response = await fetch(`${await edgeOn(s3.url)}/v1/feed-health.json`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(DOCUMENT);
    expect(s3.reads()).toBe(1);
  });

  it("answers S3's failure after one read, as CloudFront does not retry an origin's 500", async () => {
    const s3 = await flakyS3(['error', 'whole']);
    const response = await fetch(`${await edgeOn(s3.url)}/v1/feed-health.json`);
    expect(response.status).toBe(500);
    await response.arrayBuffer();
    expect(s3.reads()).toBe(1);
  });
});
