/**
 * A webhook receiver that never answers: it reads each delivery's request and leaves it hanging,
 * as a subscriber's stuck server would. The service's delivery timeout is what ends each one.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HangingReceiver {
  url: string;
  /** Deliveries received (each one left unanswered). */
  received(): number;
  /** Deliveries still held open. */
  held(): number;
  stop(): Promise<void>;
}

export async function startHangingReceiver(): Promise<HangingReceiver> {
  let received = 0;
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    received += 1;
    open.add(response);
    request.resume();
    // The caller gives up; nothing is kept of it.
    response.once('close', () => open.delete(response));
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ready());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/border-waits`,
    received: () => received,
    held: () => open.size,
    stop: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
