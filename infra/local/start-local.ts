/**
 * The whole service on one machine: dynalite and s3rver under DATA_DIR, the scheduler, the edge
 * (the CloudFront function) and the gateway (REST v1 events), calling the same handler factories
 * that the Lambda entry points use. `startLocal({ port: 0 })` serves `npm start` and the tests.
 */
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createFileSecretSource, ensureFileSecret } from '../../functions/adapters/secrets/files.ts';
import { EdgeConfigSchema, parseConfig } from '../../functions/config.ts';
import type { ForecastOutcome } from '../../functions/core/forecast/forecast-cycle.ts';
import type { SourceOutcome } from '../../functions/core/ingest/ingest.ts';
import { PROBLEM_CONTENT_TYPE, problem } from '../../functions/core/problems.ts';
import { currentSecret } from '../../functions/core/secrets.ts';
import { type Clock, systemClock } from '../../functions/core/stores.ts';
import { createApiHandler } from '../../functions/handlers/api.ts';
import { createAuthorizerHandler } from '../../functions/handlers/authorizer.ts';
import { createForecastHandler } from '../../functions/handlers/forecast.ts';
import { createIngestHandler } from '../../functions/handlers/ingest.ts';
import { createMcpHandler } from '../../functions/handlers/mcp.ts';
import { createOriginAuthorizer } from '../../functions/handlers/origin-authorizer.ts';
import {
  createOriginCheck,
  ORIGIN_VERIFY_HEADER,
  originHeaderOf,
} from '../../functions/http/origin-verify.ts';
import { FUNCTIONS, HTTP_ROUTES, isHttpRoutePath, ROUTES, SCHEDULES, SECRETS } from '../manifest.ts';
import { siteContentSecurityPolicy } from '../security-headers.ts';
import { type DevIdp, startDevIdp } from './dev-idp.ts';
import { createTables, publishEndpoints, startDynamoOwner, unpublishEndpoints } from './dynamo.ts';
import { createEdge } from './edge.ts';
import {
  BodyTooLargeError,
  type GatewayRequest,
  gatewayResponse,
  invokeProxy,
  matchResource,
  type ProxyHandler,
  readBody,
  refuseTooLarge,
  runAuthorizer,
  toRestEvent,
  writeResult,
} from './gateway.ts';
import { type HttpApiHandler, invokeHttpApi } from './http-api.ts';
import { lambdaContext } from './lambda-context.ts';
import { startS3 } from './s3.ts';
import { SITE_DIST, uploadSite } from './site-upload.ts';
import { sweepExpired } from './sweeper.ts';

export interface LocalOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  cbpFeedUrl?: string;
  cbsaFeedUrl?: string;
  /**
   * Seconds between scheduled ingests; 0 turns the schedules off (tests call `ingestNow` and
   * `forecastNow`). The forecast runs on its own schedule (SCHEDULES.forecast) when this is not 0.
   */
  ingestIntervalSeconds?: number;
  /**
   * Port of the development IdP (oidc-provider); default: the next port after `port`, or any free
   * port when `port` is 0. Not started when the environment names an external MCP_OAUTH_ISSUER.
   */
  idpPort?: number;
  /** Extra environment for the functions (limits, timeouts, IdP settings). */
  env?: Record<string, string>;
  clock?: Clock;
  log?: (line: string) => void;
  /**
   * Extra trusted CA certificates (PEM) for push services: a stand-in push service's own CA
   * (`npm start` reads NODE_EXTRA_CA_CERTS instead, which Node reads only at process start).
   */
  pushCa?: string;
}

export interface LocalService {
  url: string;
  /**
   * The origin behind the edge (API Gateway's execute-api URLs in AWS): REST routes and `/mcp`.
   * Requests sent here skip the edge, so they lack its origin secret and are refused.
   */
  originUrl: string;
  dataDir: string;
  endpoints: { dynamodb: string; s3: string };
  /** The MCP endpoint (the OAuth protected resource). */
  mcpUrl: string;
  /** The authorization server the MCP endpoint trusts. */
  issuer: string;
  /** The development IdP, when this runtime started one. */
  idp: DevIdp | null;
  /** Runs one ingest cycle now (the scheduled function, invoked as EventBridge would). */
  ingestNow(): Promise<SourceOutcome[]>;
  /** Runs the forecast function now (its slot, unless already done), as its schedule would. */
  forecastNow(): Promise<ForecastOutcome>;
  /** Deletes expired items, as DynamoDB's TTL eventually would. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

export async function startLocal(options: LocalOptions = {}): Promise<LocalService> {
  const dataDir = resolve(options.dataDir ?? '.data');
  const log = options.log ?? ((line: string) => console.log(line));
  const clock = options.clock ?? systemClock;
  const dynamo = await startDynamoOwner(dataDir);
  const s3 = await startS3(dataDir).catch(async (error: unknown) => {
    await dynamo.close();
    throw error;
  });
  await createTables(dynamo.endpoint);
  await uploadSite(s3.endpoint);
  // The site's Content-Security-Policy, from the build just uploaded (as the stack derives it). A
  // build the policy cannot allow is reported and served under the policy without inline scripts,
  // as a browser would show it; `npm run synth` refuses it.
  let sitePolicy = siteContentSecurityPolicy(undefined);
  try {
    if (existsSync(join(SITE_DIST, 'index.html'))) sitePolicy = siteContentSecurityPolicy(SITE_DIST);
  } catch (error: unknown) {
    log(`site: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Secrets Manager's part: one file per secret in DATA_DIR, created once, so the webhook secrets
  // shown when alerts were created stay valid across restarts.
  const secrets = createFileSecretSource(dataDir);
  for (const secret of Object.values(SECRETS)) await ensureFileSecret(dataDir, secret.name);
  const originCheck = createOriginCheck(secrets, SECRETS.originVerify.name);

  const env: Record<string, string | undefined> = {
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    ...(options.cbpFeedUrl ? { CBP_FEED_URL: options.cbpFeedUrl } : {}),
    // CBP's hourly graph from the same origin as its feed (the simulator serves both).
    ...(options.cbpFeedUrl
      ? { CBP_GRAPH_URL: `${new URL(options.cbpFeedUrl).origin}/api/bwtwaittimegraph/{bwtId}/{date}` }
      : {}),
    ...(options.cbsaFeedUrl ? { CBSA_FEED_URL: options.cbsaFeedUrl } : {}),
    ...options.env,
  };
  const apiHandler = createApiHandler(env, clock, secrets) as unknown as ProxyHandler;
  // Metrics are CloudWatch's in AWS (EMF lines); locally they would only crowd the console.
  const ingestHandler = createIngestHandler(env, {
    clock,
    log,
    secrets,
    metricsOutput: () => {},
    ...(options.pushCa ? { pushCa: options.pushCa } : {}),
  });
  const forecastHandler = createForecastHandler(env, { clock, log });
  const sweepClient = createDocumentClient({ endpoint: dynamo.endpoint });
  // The stack's REQUEST authorizer, run by the local gateway before the api function.
  const authorize = createAuthorizerHandler(
    {
      ...env,
      PUBLIC_USAGE_KEY: 'local-public-usage-key',
      KEYED_USAGE_KEY: 'local-keyed-usage-key',
    },
    secrets,
  );

  /**
   * A scheduled function invoked as EventBridge would, one run at a time (a reserved concurrency
   * of 1 in AWS): a call while one runs gets that run.
   */
  const scheduled = <T>(
    handler: (event: never, context: ReturnType<typeof lambdaContext>) => Promise<T>,
    fn: { name: string; timeoutSeconds: number },
  ) => {
    let running: Promise<T> | null = null;
    return {
      run: (): Promise<T> => {
        if (running) return running;
        const current = (async () =>
          handler(
            {
              source: 'aws.events',
              'detail-type': 'Scheduled Event',
              time: new Date(clock.now()).toISOString(),
            } as never,
            lambdaContext(fn.name, fn.timeoutSeconds),
          ))();
        running = current;
        // Cleared when it ends (even if it failed at once), so the next call starts a new run.
        const clear = () => {
          if (running === current) running = null;
        };
        current.then(clear, clear);
        return current;
      },
      settled: () => running?.catch(() => undefined),
    };
  };
  const ingest = scheduled<SourceOutcome[]>(ingestHandler, FUNCTIONS.ingest);
  const forecast = scheduled<ForecastOutcome>(forecastHandler, FUNCTIONS.forecast);
  const ingestNow = ingest.run;
  const forecastNow = forecast.run;

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route =
      ROUTES.find((r) => r.path === url.pathname) ??
      ROUTES.find((r) => r.path.includes('{') && matchResource(r.path, url.pathname) !== null);
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (error: unknown) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      refuseTooLarge(req, res);
      return;
    }
    const request: GatewayRequest = {
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      body,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    };
    if (!route || !(route.methods.includes('ANY') || route.methods.includes(request.method))) {
      // API Gateway's MISSING_AUTHENTICATION_TOKEN (no such resource or method), a 404 in the stack.
      writeResult(res, gatewayResponse('MissingToken', 'Missing Authentication Token'), request.method);
      return;
    }
    // The REQUEST authorizer runs first on every method, as in the stack.
    const auth = await runAuthorizer(authorize, toRestEvent(request, route.path, null), log);
    if ('result' in auth) {
      writeResult(res, auth.result, request.method);
      return;
    }
    const event = toRestEvent(request, route.path, auth.verdict);
    const result = await invokeProxy(
      apiHandler,
      event,
      FUNCTIONS.api.name,
      FUNCTIONS.api.timeoutSeconds,
      log,
    );
    writeResult(res, result, request.method);
  }

  // The HTTP API's Lambda authorizer (identity source: the origin header), run before the mcp function.
  const authorizeOrigin = createOriginAuthorizer({ origin: originCheck });
  // Bound after the server listens: the resource URL (and the IdP's audience) carry the real port.
  let mcpHandler: HttpApiHandler | undefined;
  async function http(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = HTTP_ROUTES.find((r) =>
      r.path.endsWith('*') ? url.pathname.startsWith(r.path.slice(0, -1)) : r.path === url.pathname,
    );
    if (!route || !(route.methods.includes('ANY') || route.methods.includes(req.method ?? 'GET'))) {
      // An HTTP API answers a path or method without a route with this 404.
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"Not Found"}');
      return;
    }
    // As the HTTP API answers: no identity source 401, not authorized 403, authorizer failure 500.
    const presented = originHeaderOf(req.headers as Record<string, string | undefined>);
    let authorized: boolean | null;
    try {
      authorized = presented
        ? (await authorizeOrigin({ headers: { [ORIGIN_VERIFY_HEADER]: presented } })).isAuthorized
        : null;
    } catch (error: unknown) {
      log(`http api: origin authorizer failed: ${error instanceof Error ? error.message : String(error)}`);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"message":"Internal Server Error"}');
      return;
    }
    if (authorized !== true) {
      await readBody(req).catch(() => undefined);
      res.writeHead(authorized === null ? 401 : 403, { 'content-type': 'application/json' });
      res.end(authorized === null ? '{"message":"Unauthorized"}' : '{"message":"Forbidden"}');
      return;
    }
    if (!mcpHandler) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"message":"Service Unavailable"}');
      return;
    }
    await invokeHttpApi(mcpHandler, req, res, url, {
      functionName: FUNCTIONS.mcp.name,
      timeoutSeconds: FUNCTIONS.mcp.timeoutSeconds,
      routeKey: `${req.method ?? 'GET'} ${route.path}`,
      log,
    });
  }

  const edge = createEdge({
    s3Endpoint: s3.endpoint,
    api,
    http,
    originSecret: () => currentSecret(secrets, SECRETS.originVerify.name),
    log,
    clock,
    edgePerMinute: parseConfig(EdgeConfigSchema, env).EDGE_RATE_LIMIT_PER_MINUTE,
    siteContentSecurityPolicy: sitePolicy,
  });
  const server = createServer((req, res) => {
    edge(req, res).catch((error: unknown) => {
      log(`edge error: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent) res.writeHead(502, { 'content-type': PROBLEM_CONTENT_TYPE });
      res.end(JSON.stringify(problem('server-error', 'The edge failed to answer', req.url ?? '/')));
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => ready());
  });
  // The origin (API Gateway's execute-api URLs): the same gateways without the edge in front, so
  // a request that skips the CDN is seen as it would be in AWS (refused by the authorizers).
  const origin = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://origin.local');
    (isHttpRoutePath(url.pathname) ? http(req, res, url) : api(req, res, url)).catch((error: unknown) => {
      log(`origin error: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"message":"Internal Server Error"}');
    });
  });
  origin.keepAliveTimeout = 5_000;
  await new Promise<void>((ready, fail) => {
    origin.once('error', fail);
    origin.listen(0, '127.0.0.1', () => ready());
  });
  const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const address = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${address.port}`;
  const mcpUrl = `${url}/mcp`;
  const externalIssuer = env.MCP_OAUTH_ISSUER;
  const idp = externalIssuer
    ? null
    : await startDevIdp({
        resource: mcpUrl,
        host: options.host ?? '127.0.0.1',
        port: options.idpPort ?? (address.port === 0 || !options.port ? 0 : address.port + 1),
        persistDir: join(dataDir, 'dev-idp'),
      });
  const issuer = externalIssuer ?? (idp as DevIdp).issuer;
  mcpHandler = createMcpHandler(
    {
      MCP_ALLOWED_HOSTS: `127.0.0.1,localhost,[::1]`,
      ...env,
      MCP_RESOURCE_URL: env.MCP_RESOURCE_URL ?? mcpUrl,
      // The views through this edge, as in AWS through the CDN (the role reads only exports/);
      // revalidated on every read, since this edge keeps no cache either.
      MCP_DOCUMENTS_URL: env.MCP_DOCUMENTS_URL ?? url,
      MCP_DOCUMENTS_REVALIDATE: env.MCP_DOCUMENTS_REVALIDATE ?? 'true',
      MCP_OAUTH_ISSUER: issuer,
    },
    clock,
    secrets,
  ) as unknown as HttpApiHandler;
  await publishEndpoints(dataDir, { dynamodb: dynamo.endpoint, s3: s3.endpoint, url, issuer, mcp: mcpUrl });

  const timers: NodeJS.Timeout[] = [];
  const interval = options.ingestIntervalSeconds ?? SCHEDULES.ingest.rateSeconds;
  if (interval > 0) {
    const failed = (name: string) => (error: unknown) =>
      log(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    const tick = () => ingestNow().catch(failed('ingest'));
    const forecastTick = () => forecastNow().catch(failed('forecast'));
    // The first forecast after the first ingest, so it has readings to start from.
    void tick().then(forecastTick);
    timers.push(setInterval(tick, interval * 1000));
    timers.push(setInterval(forecastTick, SCHEDULES.forecast.rateSeconds * 1000));
    timers.push(
      setInterval(() => {
        sweepExpired(sweepClient, clock.now()).catch((error: unknown) =>
          log(`sweep failed: ${String(error)}`),
        );
      }, 3_600_000),
    );
  }

  let stopped = false;
  return {
    url,
    originUrl,
    dataDir,
    endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint },
    mcpUrl,
    issuer,
    idp,
    ingestNow,
    forecastNow,
    sweep: () => sweepExpired(sweepClient, clock.now()),
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await ingest.settled();
      await forecast.settled();
      for (const listening of [server, origin]) {
        await new Promise<void>((done) => {
          listening.close(() => done());
          listening.closeAllConnections();
        });
      }
      sweepClient.destroy();
      await idp?.close();
      await unpublishEndpoints(dataDir);
      await s3.close();
      await dynamo.close();
    },
  };
}
