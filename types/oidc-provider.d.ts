/** The part of oidc-provider 9 the development IdP uses (the package ships no types). */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface KoaContext {
    path: string;
    method: string;
    query: Record<string, unknown>;
    req: IncomingMessage;
    res: ServerResponse;
    status: number;
    type: string;
    body: unknown;
    respond: boolean;
    get(name: string): string;
    set(name: string, value: string): void;
    vary(name: string): void;
    throw(status: number, message?: string): never;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    rejectOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    rejectResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: {
      name: string;
      details: {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
    };
    params: Record<string, string>;
    session?: { accountId: string };
    grantId?: string;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: {
      new (properties: { accountId: string; clientId: string | undefined }): GrantInstance;
      find(id: string): Promise<GrantInstance | undefined>;
    };
    Client: { find(id: string): Promise<unknown> };
    AccessToken: new (
      properties: Record<string, unknown>,
    ) => { resourceServer: unknown; save(): Promise<string> };
    ResourceServer: new (
      identifier: string,
      info: Record<string, unknown>,
    ) => unknown;
  }

  export const errors: { InvalidTarget: new () => Error };
}
