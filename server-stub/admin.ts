/**
 * The operator's ways to change the stub while it runs, from outside its process (docs/protocol/http-api.md,
 * "Operator routes"; docs/protocol/stub.md): the routes `/v1/admin/keys` and `/v1/admin/build`, which take the admin
 * key alone, and the keys file of `toolwire-stub --api-keys-file`, read again on SIGHUP. The keys are secrets:
 * nothing here answers, logs or throws one; a key is shown by its fingerprint (`k_` and 16 hex digits of its
 * SHA-256) at most.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { keyProblem } from './auth';
import {
  type ApiKeyEntry,
  BUILD_ID_RULE,
  buildIdProblem,
  buildPolicyOf,
  repeatedKeyProblem,
  tenantOfEntry,
} from './fleet';
import { parseBody } from './http-bodies';
import { HttpError, readJsonBody, sendJson } from './http-io';
import type { StubService } from './service';
import { tenantIdOf } from './tenants';

/** Most keys one list may hold (`PUT /v1/admin/keys`, a keys file). */
export const MAX_ADMIN_KEYS = 1_000;

/** Longest tenant name, in characters. */
export const MAX_TENANT_CHARS = 256;

/** The fingerprint a key is shown by: never the key itself. */
export function keyId(key: string): string {
  return `k_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** Why `tenant` cannot name a tenant, or `undefined`. */
function tenantProblem(tenant: unknown): string | undefined {
  if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > MAX_TENANT_CHARS)
    return `must be a string of 1 to ${MAX_TENANT_CHARS} characters`;
  return undefined;
}

/**
 * Checks a list of keys an operator gave (not empty: that would accept any key; without the admin key, which is
 * no tenant's).
 * @throws Error with a message naming the entry at fault (`keys[2].tenant must be …`), never a key.
 */
export function checkKeyList(
  entries: readonly unknown[],
  adminKey: string | undefined,
  where = 'keys',
): ApiKeyEntry[] {
  if (entries.length === 0)
    throw new Error(`${where} must list at least one key (an empty list would accept any key)`);
  if (entries.length > MAX_ADMIN_KEYS)
    throw new Error(`${where} may list at most ${MAX_ADMIN_KEYS} keys, got ${entries.length}`);
  const checked = entries.map((entry, index) => {
    const at = `${where}[${index}]`;
    const isObject = typeof entry === 'object' && entry !== null && !Array.isArray(entry);
    const key = isObject ? (entry as { key?: unknown }).key : entry;
    const problem = keyProblem(key);
    if (problem !== undefined) throw new Error(`${isObject ? `${at}.key` : at} ${problem}`);
    if (key === adminKey) throw new Error(`${at} is the admin key, which is no tenant's key`);
    if (!isObject) return key as string;
    const { tenant } = entry as { tenant?: unknown };
    const bad = tenantProblem(tenant);
    if (bad !== undefined) throw new Error(`${at}.tenant ${bad}`);
    return { key: key as string, tenant: tenant as string };
  });
  const repeated = repeatedKeyProblem(checked, where);
  if (repeated !== undefined) throw new Error(repeated);
  return checked;
}

/**
 * The keys of a keys file: one a line, `<key>` or `<key> <tenant>`; blank lines and lines starting with `#`
 * ignored.
 * @throws Error naming the line at fault, never a key.
 */
export function parseKeysFile(text: string, adminKey: string | undefined): ApiKeyEntry[] {
  const entries: unknown[] = [];
  /** The line number of each entry. */
  const lineOf: number[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    if (fields.length > 2) throw new Error(`line ${index + 1} must be "<key>" or "<key> <tenant>"`);
    entries.push(fields.length === 1 ? fields[0] : { key: fields[0], tenant: fields[1] });
    lineOf.push(index + 1);
  }
  try {
    return checkKeyList(entries, adminKey, 'the file');
  } catch (error) {
    // `the file[3]` is the fourth key, not a line: say which line it is on.
    throw new Error(
      (error as Error).message
        .replace(/^the file\[(\d+)\](\.key|\.tenant)? must/, (_, n: string, field = '.key') => {
          return `line ${lineOf[Number(n)]}: the ${field.slice(1)} must`;
        })
        .replace(/the file\[(\d+)\]/g, (_, n: string) => `line ${lineOf[Number(n)]}`),
    );
  }
}

/** `PUT /v1/admin/keys`: `{ keys: Array<string | { key, tenant }> }`. */
const keysBody = z.object(
  { keys: z.array(z.unknown(), { error: 'must be an array' }) },
  { error: 'request body must be a JSON object' },
);

/** `PUT /v1/admin/build`: `{ buildId: string | null, tenant?: string }`. */
const buildBody = z.object(
  {
    tenant: z.optional(
      z.string({ error: `must be a string of 1 to ${MAX_TENANT_CHARS} characters` }).check(
        z.refine((tenant) => tenantProblem(tenant) === undefined, {
          error: `must be a string of 1 to ${MAX_TENANT_CHARS} characters`,
        }),
      ),
    ),
    buildId: z.nullable(
      z.string({ error: `must be ${BUILD_ID_RULE}, or null` }).check(
        z.refine((buildId) => buildIdProblem(buildId) === undefined, {
          error: `must be ${BUILD_ID_RULE}, or null`,
        }),
      ),
    ),
  },
  { error: 'request body must be a JSON object' },
);

/** `GET /v1/admin/keys`: the accepted keys by fingerprint, with their tenants' ids. */
export function listKeys(service: StubService, _req: IncomingMessage, res: ServerResponse): void {
  const keys = service.keys.entries().map(([key, tenant]) => ({
    id: keyId(key),
    tenantId: tenantIdOf(tenant),
  }));
  sendJson(res, 200, { checked: service.keys.checked, keys });
}

/** `PUT /v1/admin/keys`: replaces the accepted keys; sockets on a key no longer listed are closed 4001. */
export async function replaceKeys(
  service: StubService,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = parseBody(keysBody, await readJsonBody(req, service.options.maxHttpBodyBytes));
  let entries: ApiKeyEntry[];
  try {
    entries = checkKeyList(body.keys, service.options.adminKey);
  } catch (error) {
    throw new HttpError(400, 'invalid_request', (error as Error).message);
  }
  const revoked = service.setApiKeys(entries);
  const tenants = new Set(entries.map(tenantOfEntry));
  const keys = service.keys.size;
  service.options.logger.info(
    { keys, tenants: tenants.size, revoked },
    'API keys replaced (PUT /v1/admin/keys)',
  );
  sendJson(res, 200, { keys, tenants: tenants.size, revoked });
}

/** `GET /v1/admin/build`: the default current build, and each tenant's own (by tenant id, never a key). */
export function getBuild(service: StubService, _req: IncomingMessage, res: ServerResponse): void {
  const tenants = [...service.tenantBuilds].map(([tenant, buildId]) => ({
    tenantId: tenantIdOf(tenant),
    currentBuildId: buildId,
  }));
  sendJson(res, 200, { ...buildPolicyOf(service.currentBuild), tenants });
}

/**
 * `PUT /v1/admin/build`: sets the current build (`null` clears it) of `tenant`, or without one the default of
 * every tenant that has none; answers what applies to that tenant now.
 */
export async function putBuild(
  service: StubService,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = parseBody(buildBody, await readJsonBody(req, service.options.maxHttpBodyBytes));
  if (body.tenant !== undefined && !service.keys.checked)
    throw new HttpError(
      400,
      'invalid_request',
      'tenant: the stub accepts any API key, so every client is one tenant; leave tenant out',
    );
  // A typo would set a build nobody reads; the name is not echoed (it might be a key typed by mistake).
  const tenant = body.tenant === undefined ? undefined : service.keys.tenantNamed(body.tenant);
  if (body.tenant !== undefined && tenant === undefined)
    throw new HttpError(
      400,
      'invalid_request',
      'tenant: no accepted key belongs to that tenant (GET /v1/admin/keys lists the tenants by id)',
    );
  service.setCurrentBuild(body.buildId ?? undefined, tenant);
  const state = buildPolicyOf(service.currentBuildOf(tenant));
  sendJson(res, 200, tenant === undefined ? state : { tenantId: tenantIdOf(tenant), ...state });
}
