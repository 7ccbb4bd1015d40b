/**
 * The agent UI's static files: the page at `/` and its two bundled assets. They carry no data and no key, so
 * they are served without authentication; everything the page shows comes from the authenticated HTTP API
 * (docs/protocol/index.md docs/protocol/agent-ui.md, "The agent UI").
 *
 * The assets are built from `server-stub/ui/app/` by `npm run build:ui` into `assets.generated.ts` (committed),
 * so neither the CLI nor a user of the package needs a build step.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import { APP_CSS, APP_JS, ASSETS_VERSION } from './assets.generated';

/** Paths of the UI, each with what it serves. */
export const UI_PATHS = ['/', '/ui/app.js', '/ui/app.css'] as const;

/**
 * The page's Content-Security-Policy: only its own script and style, images from the URLs an Image widget may
 * carry (`https:`, `http:`, `data:`), requests to the stub itself. Text from tools is never parsed as HTML
 * anyway (the page only sets `textContent`); this stops anything that slipped through from running or loading.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src https: http: data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolwire · agent UI</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/app.css?v=${ASSETS_VERSION}">
<script src="/ui/app.js?v=${ASSETS_VERSION}" defer></script>
</head>
<body>
<noscript>The toolwire agent UI needs JavaScript.</noscript>
</body>
</html>
`;

const FILES: Record<(typeof UI_PATHS)[number], { type: string; body: string }> = {
  '/': { type: 'text/html; charset=utf-8', body: PAGE },
  '/ui/app.js': { type: 'text/javascript; charset=utf-8', body: APP_JS },
  '/ui/app.css': { type: 'text/css; charset=utf-8', body: APP_CSS },
};

/** `true` when `path` is one of {@link UI_PATHS}. */
export function isUiPath(path: string): path is (typeof UI_PATHS)[number] {
  return Object.hasOwn(FILES, path);
}

/** Writes the UI file at `path` (one of {@link UI_PATHS}); `head` writes the headers only. */
export function serveUi(path: (typeof UI_PATHS)[number], response: ServerResponse, head = false): void {
  const file = FILES[path];
  response.writeHead(200, {
    'content-type': file.type,
    'content-length': Buffer.byteLength(file.body),
    // The page is tiny and the assets are versioned by their query string: always revalidating is simplest.
    'cache-control': 'no-cache',
    'content-security-policy': UI_CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  response.end(head ? undefined : file.body);
}
