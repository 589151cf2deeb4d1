/**
 * `npm run push-service [-- --port 8443]`: a stand-in push service on https://127.0.0.1 (its own CA,
 * made with openssl now), to try the travellers' push alerts without a browser's push service.
 * It prints how to start the service so that it sends there and trusts the CA, and how to make a
 * subscription; then it prints every message it receives, decrypted, until Ctrl-C.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPushService } from '../infra/local/push-service.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '8443' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error('usage: npm run push-service [-- --port 8443]');
  process.exit(2);
}
const service = await startPushService({
  port,
  onMessage: (message) =>
    console.log(`message for ${message.endpoint}:\n  ${JSON.stringify(message.payload)}`),
});
// NODE_EXTRA_CA_CERTS adds to Node's roots; keep what it named before (these machines set it).
const bundle = join(service.ca.dir, 'bundle.pem');
const previous = process.env.NODE_EXTRA_CA_CERTS;
writeFileSync(bundle, `${previous ? readFileSync(previous, 'utf8') : ''}\n${service.ca.caPem}`);
console.log(`Stand-in push service at ${service.origin}. In another terminal:

  PUSH_SERVICE_HOSTS=${service.host} NODE_EXTRA_CA_CERTS=${bundle} npm run demo

then subscribe as a browser would (the service's VAPID key, a subscription from here) and set an alert:

  KEY=$(curl -s http://127.0.0.1:3000/push/vapid-public-key | sed 's/.*"publicKey":"\\([^"]*\\)".*/\\1/')
  SUB=$(curl -s --cacert ${service.ca.caFile} -X POST ${service.origin}/subscribe -d "{\\"applicationServerKey\\":\\"$KEY\\"}")
  curl -s -X POST http://127.0.0.1:3000/push/subscriptions -H 'content-type: application/json' \\
    -d "{\\"subscription\\":$SUB,\\"alert\\":{\\"port_id\\":\\"san-ysidro\\",\\"direction\\":\\"into-us\\",\\"mode\\":\\"passenger\\",\\"lane\\":\\"standard\\",\\"below_minutes\\":240}}"

Messages arrive here after the next ingest (every minute). Ctrl-C stops.`);
const stop = () => void service.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
