/**
 * `npm run token -- --user pro|business [--scope "alerts history"] [--json]`: signs a development
 * user in at the dev IdP of the running `npm start` (authorization code + PKCE, as a client would)
 * and prints the access token for the MCP endpoint, e.g.
 *   curl -H "Authorization: Bearer $(npm run -s token -- --user pro)" ...
 */
import { parseArgs } from 'node:util';
import { DEV_USERS } from '../infra/local/dev-idp.ts';
import { devLogin } from '../infra/local/dev-idp-login.ts';
import { runningEndpoints } from '../infra/local/dynamo.ts';

const { values } = parseArgs({
  options: {
    user: { type: 'string', default: 'pro' },
    scope: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || !(values.user in DEV_USERS)) {
  console.error(
    'usage: npm run token -- --user pro|business [--scope "alerts history"] [--json]\n' +
      'Prints an access token from the development IdP of the running `npm start` (DATA_DIR, default .data).',
  );
  process.exit(values.help ? 0 : 2);
}
const dataDir = process.env.DATA_DIR ?? '.data';
const running = await runningEndpoints(dataDir);
if (!running?.issuer || !running.mcp) {
  console.error(
    `No running service found under ${dataDir}: start it with \`npm start\` (or \`npm run demo\`) first.`,
  );
  process.exit(1);
}
try {
  const tokens = await devLogin({
    issuer: running.issuer,
    user: values.user,
    resource: running.mcp,
    ...(values.scope ? { scope: values.scope } : {}),
  });
  if (values.json) {
    console.log(JSON.stringify({ ...tokens, issuer: running.issuer, resource: running.mcp }, null, 2));
  } else {
    console.log(tokens.access_token);
    console.error(
      `user ${values.user}, scope "${tokens.scope}", expires in ${tokens.expires_in} s, for ${running.mcp}`,
    );
  }
} catch (error: unknown) {
  console.error(
    `token failed: ${error instanceof Error ? error.message : String(error)} (is ${running.issuer} an external IdP? This command only works with the development IdP.)`,
  );
  process.exit(1);
}
