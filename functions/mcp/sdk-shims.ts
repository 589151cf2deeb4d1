/**
 * What the bundles load instead of `@modelcontextprotocol/server/_shims` (see BUNDLE_ALIASES in
 * infra/constructs/service-function.ts). The SDK's Node shim exports Ajv as the default JSON
 * Schema validator (150 KB minified) and the process object for stdio; the mcp function passes its
 * own validator to every server (create-mcp-server.ts) and serves HTTP, never stdio, so the
 * default is never constructed. The same exports, with the validator the server is given.
 */
import process from 'node:process';

export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
export { process };
