// oidc-provider ships no types; the tests use a small part of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface ProviderClient {
    grantTypeAllowed(grant: string): boolean;
  }
  interface GrantModel {
    destroy(): Promise<void>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: never[]) => void): this;
    Grant: { find(id: string): Promise<GrantModel | undefined> };
  }
  export type { ProviderClient };
}
