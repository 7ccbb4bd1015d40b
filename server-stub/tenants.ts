/**
 * Tenants: with `apiKeys` set, each API key belongs to one tenant, an account that outlives changes of its keys
 * (server-stub/fleet.ts `KeyRing`; a key listed alone is a tenant of its own). A run belongs to the tenant that
 * started it (over a socket or HTTP; a nested run to its parent's); its calls go only to that tenant's sessions, results,
 * decisions and answers are taken only from them, and the HTTP API (so the agent UI) shows and acts on that
 * tenant's runs only. Another tenant's run or call reads as unknown (`unknown_run`, `unknown_call`, HTTP 404),
 * never as "not yours", so ids do not leak. A stub without `apiKeys` accepts any key, and then everyone is one
 * tenant (a local dev server). The server's own API (`server.runs`, `server.events`, `server.sessions()`) is the
 * operator's and sees every tenant.
 *
 * @module
 */

import { createHash } from 'node:crypto';

/**
 * The id a tool call is told its run's tenant by (`tool_call.tenantId`, feature `call_context`): never the API key
 * itself, which is a secret, but `t_` and the first 16 hex digits of its SHA-256; `default` for the one tenant of
 * a stub without `apiKeys`.
 */
export function tenantIdOf(tenant: string | undefined): string {
  if (tenant === undefined) return 'default';
  return `t_${createHash('sha256').update(tenant).digest('hex').slice(0, 16)}`;
}
