/**
 * Tenants: with `apiKeys` set, each API key is a tenant of its own. A run belongs to the tenant that started it
 * (over a socket or HTTP; a nested run to its parent's); its calls go only to that tenant's sessions, results,
 * decisions and answers are taken only from them, and the HTTP API (so the agent UI) shows and acts on that
 * tenant's runs only. Another tenant's run or call reads as unknown (`unknown_run`, `unknown_call`, HTTP 404),
 * never as "not yours", so ids do not leak. A stub without `apiKeys` accepts any key, and then everyone is one
 * tenant (a local dev server). The server's own API (`server.runs`, `server.events`, `server.sessions()`) is the
 * operator's and sees every tenant.
 *
 * @module
 */

/** The tenant of a request or socket that presented `key`: the key when keys are checked, else the one tenant. */
export function tenantOf(
  apiKeys: ReadonlySet<string> | undefined,
  key: string | undefined,
): string | undefined {
  return apiKeys === undefined ? undefined : key;
}
