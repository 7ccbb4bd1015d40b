/**
 * Which web pages may reach the stub. A browser lets any page it shows send requests to 127.0.0.1 and open
 * WebSockets there; a stub that accepts any key (no `apiKeys`) would let a site the user happens to visit read its
 * runs, start runs, decide approvals, or offer tools and receive the calls of runs started over HTTP. Checked
 * before the key (docs/protocol/http-api.md, "Web pages of other origins"):
 * - `Origin`: a browser names the page's origin on every cross-origin request, every POST and every WebSocket;
 *   other HTTP clients (curl, servers, the SDK in Node) send none. A page of the stub itself (the agent UI) or of
 *   one of `corsOrigins` passes.
 * - `Host`: a stub bound to a loopback address answers only requests addressed to it by a loopback name. A page
 *   that renames 127.0.0.1 (DNS rebinding: `evil.example` resolving to 127.0.0.1) sends its own name there, and
 *   would otherwise be of the stub's own origin.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { StubService } from './service';

/** Why the request may not reach the stub (`code` and `message` of a 403), or `undefined` when it may. */
export interface PageRefusal {
  code: 'origin_not_allowed' | 'host_not_allowed';
  message: string;
}

/**
 * Checks a request that reads or changes the stub's state (an HTTP route that needs a key, the WebSocket upgrade).
 * `websocket`: an upgrade, whose `Origin` is checked only while the stub accepts any key (a browser client of
 * another page that knows an accepted key is a supported use; without keys, any page would be one).
 */
export function pageRefusal(
  service: StubService,
  request: IncomingMessage,
  websocket = false,
): PageRefusal | undefined {
  const host = request.headers.host;
  if (host !== undefined && isLoopback(service.options.host) && !isLoopback(hostName(host))) {
    return {
      code: 'host_not_allowed',
      message: `the stub is bound to ${service.options.host} and answers only requests addressed to a loopback name (localhost, 127.0.0.1, [::1]), not ${JSON.stringify(host)}: open it as http://localhost with the same port, or start the stub with --host set to the address that name reaches`,
    };
  }
  const origin = request.headers.origin;
  if (origin === undefined || service.options.corsOrigins.has(origin)) return undefined;
  if (websocket && service.keys.checked) return undefined;
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).host;
  } catch {
    // `null` (a sandboxed frame, a file: page) or garbage: not the stub's own pages.
  }
  if (originHost !== undefined && originHost === host) return undefined;
  // A page of no origin (`null`) cannot be let in by name: every sandboxed frame and file: page on the web sends it.
  const fix =
    originHost === undefined
      ? 'serve the page over http(s) and start the stub with corsOrigins (--cors <its origin>)'
      : `start the stub with corsOrigins (--cors ${origin}) to let that origin in`;
  return {
    code: 'origin_not_allowed',
    message: `requests from web pages of ${JSON.stringify(origin)} are not allowed: ${fix}`,
  };
}

/** Refusals logged per stub: each distinct one once (a page retries every few seconds), at most this many. */
const MAX_LOGGED_REFUSALS = 64;
const logged = new WeakMap<StubService, Set<string>>();

/**
 * Logs `refusal` (a `warn`, with the request's `Origin` and `Host`) the first time this stub refuses it: a page
 * that polls would otherwise write the same line every few seconds. HTTP routes and upgrades alike.
 */
export function logRefusal(service: StubService, request: IncomingMessage, refusal: PageRefusal): void {
  let seen = logged.get(service);
  if (seen === undefined) {
    seen = new Set();
    logged.set(service, seen);
  }
  if (seen.has(refusal.message) || seen.size >= MAX_LOGGED_REFUSALS) return;
  seen.add(refusal.message);
  service.options.logger.warn(
    { code: refusal.code, origin: request.headers.origin, host: request.headers.host },
    `refused a request: ${refusal.message}`,
  );
}

/**
 * The warning for a stub that accepts any key while bound to an address other machines can reach (`0.0.0.0`, a
 * LAN address): anyone who reaches the port, no browser needed, is a client. `undefined` for a loopback address.
 */
export function reachableWithoutKeys(host: string, port: number): string | undefined {
  if (isLoopback(host)) return undefined;
  return `bound to ${host}, which other machines may reach, with no apiKeys: anyone who reaches port ${port} can start runs, read transcripts, decide approvals and offer tools; give apiKeys (--api-key) or bind to 127.0.0.1`;
}

/** The host name of a `Host` header (`name:port`, `[v6]:port`), without its port and brackets, lower-cased. */
function hostName(host: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d*$/, '').toLowerCase();
}

/** `true` for `localhost`, a name under `.localhost`, an IPv4 address in 127/8 and `::1`. */
function isLoopback(name: string): boolean {
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  const kind = isIP(bare);
  if (kind === 4) return bare.startsWith('127.');
  if (kind === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}
