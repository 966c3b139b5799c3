#!/usr/bin/env node
// Serves the devtools page (www/devtools/), the built package (pkg/, as `./pkg/`) and the worker's client
// (worker/client/client.js, as `./worker-client.js`) on 127.0.0.1, as static files; with a
// worker URL, also proxies `live/*` to that worker so the page can send calls to it (live mode) without
// leaving its origin. The worker wants a caller's token: the proxy adds it, so the
// token stays in this process and never reaches the page, its URL or its share links. Because the proxy
// lends that token (and the local sandbox runs what it is sent), it answers its own page only: `Host`
// must be this server's own address, a proxied request must come from this page's origin (`Origin`, or
// `Sec-Fetch-Site: same-origin`), carry JSON, and ask for a route live mode uses. Used by
// examples/demo.mjs (scripts/run.sh) and the page's tests.
//
//   WORKER_TOKEN=… node www/serve.mjs [--port N] [--worker http://127.0.0.1:PORT]
//   const page = await startDevtools({ port: 0, worker, token }); … page.url … await page.close();
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
/**
 * Single files served beside the page: the edge worker's client, which live mode imports by URL (one
 * file without dependencies; its folder's other files, node_modules among them, are not served).
 */
const FILES = new Map([['/worker-client.js', join(ROOT, 'worker', 'client', 'client.js')]]);
/** URL prefix → folder. */
const MOUNTS = [
  ['/pkg/', join(ROOT, 'pkg')],
  ['/', join(HERE, 'devtools')],
];
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};
/** The page loads nothing from elsewhere; wasm compiles under 'wasm-unsafe-eval'. */
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

function send(res, status, type, body, extra = {}) {
  res.writeHead(status, { ...extra, 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

const problem = (res, status, code, message) => send(res, status, 'application/json', JSON.stringify({ error: { code, message } }));

/** The file a URL path names, or null when it names none (or tries to leave its folder). */
function fileOf(pathname) {
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  if (FILES.has(decoded)) return FILES.get(decoded);
  for (const [prefix, dir] of MOUNTS) {
    if (!decoded.startsWith(prefix)) continue;
    const rest = decoded.slice(prefix.length) || 'index.html';
    const file = resolve(dir, rest);
    return file.startsWith(dir + sep) ? file : null;
  }
  return null;
}

async function serveFile(req, res, pathname) {
  const file = fileOf(pathname);
  const info = file ? await stat(file).catch(() => null) : null;
  if (!file || !info?.isFile()) return problem(res, 404, 'not_found', `${pathname} is not here`);
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(extname(file) === '.html' ? { 'content-security-policy': CSP } : {}),
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).pipe(res);
}

/** The worker routes live mode uses (method, path under `live/`): nothing else is proxied. */
const PROXIED = [['POST', /^conversations\/[A-Za-z0-9._:-]{1,128}\/tool-calls$/]];
/** The largest body the proxy forwards: live mode sends one call at a time. */
const MAX_PROXIED_BYTES = 1024 * 1024;

/** Whether `host` (a Host header) names this server: its loopback address or `localhost`, and its port. */
export function isOwnHost(host, port) {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

/**
 * Why a proxied request is refused, or `null`: it must come from this page (its origin, as the browser
 * says it: `Origin`, or `Sec-Fetch-Site` when the browser sends no `Origin`), carry JSON, and ask for a
 * route live mode uses. A cross-site form or `text/plain` POST, and any other route, never reach the worker.
 * @param {import('node:http').IncomingMessage} req
 * @param {string} rest the path under `live/`
 */
export function proxyRefusal(req, rest) {
  const origin = req.headers.origin;
  const own = `http://${req.headers.host}`;
  if (origin !== undefined ? origin !== own : req.headers['sec-fetch-site'] !== 'same-origin') {
    return ['cross_origin', 'live mode answers its own page only (Origin or Sec-Fetch-Site)'];
  }
  if (!PROXIED.some(([method, path]) => method === req.method && path.test(rest))) {
    return ['not_proxied', `${req.method} live/${rest} is not a route live mode uses`];
  }
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return ['json_only', 'live mode sends JSON (content-type: application/json)'];
  return null;
}

/** The worker's answer headers the proxy passes on (beside the content type). */
const PASSED_HEADERS = ['retry-after', 'x-request-id'];

/**
 * Forwards `live/<rest>` to the worker: same method, body and content type, and the token if any; its
 * answer comes back with its status, content type, `Retry-After` and `X-Request-Id`.
 */
async function proxy(req, res, worker, token, rest) {
  const refusal = proxyRefusal(req, rest);
  if (refusal) return problem(res, 403, refusal[0], refusal[1]);
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > MAX_PROXIED_BYTES) return problem(res, 413, 'payload_too_large', `live mode sends at most ${MAX_PROXIED_BYTES} bytes`);
    chunks.push(c);
  }
  try {
    const answer = await fetch(`${worker}/${rest}`, {
      method: req.method,
      headers: {
        ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : Buffer.concat(chunks),
    });
    // What the page acts on besides the body: when to try again, and the request's id to quote.
    const passed = {};
    for (const name of PASSED_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) passed[name] = value;
    }
    send(res, answer.status, answer.headers.get('content-type') ?? 'application/octet-stream', Buffer.from(await answer.arrayBuffer()), passed);
  } catch (e) {
    problem(res, 502, 'worker_unreachable', `the worker at ${worker} did not answer: ${e.message}`);
  }
}

/**
 * Starts the page's server on 127.0.0.1.
 * @param {{ port?: number, worker?: string, token?: string }} [options] port 0 = any free port; worker =
 *   the edge worker's base URL for live mode, token = the caller's token the proxy sends it
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export function startDevtools({ port = 0, worker, token } = {}) {
  const base = worker?.replace(/\/+$/, '');
  const server = createServer((req, res) => {
    // A page of another site that rebinds its own name to 127.0.0.1 sends its own name as Host.
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : undefined;
    if (!isOwnHost(req.headers.host, port)) return problem(res, 421, 'wrong_host', 'this server answers its own address only (Host)');
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (pathname === '/live/status') {
      return send(res, 200, 'application/json', JSON.stringify(base ? { live: true, worker: base } : { live: false }));
    }
    if (pathname.startsWith('/live/')) {
      if (!base) return problem(res, 503, 'no_worker', 'no worker: start the page with scripts/run.sh for live mode');
      // The path as sent, not as URL parsing resolved it (`a/../b` is not a route live mode uses).
      const sent = (req.url ?? '/').replace(/[?#].*$/s, '');
      return proxy(req, res, base, token, sent.startsWith('/live/') ? sent.slice('/live/'.length) : '');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return problem(res, 405, 'method_not_allowed', `${req.method} ${pathname}`);
    serveFile(req, res, pathname).catch((e) => problem(res, 500, 'read_failed', e.message));
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/`;
      done({
        url,
        close: () =>
          new Promise((closed) => {
            server.closeAllConnections();
            server.close(() => closed());
          }),
      });
    });
  });
}

/** Starts on `port`, or on any free port when that one is taken. */
export async function startDevtoolsNear(port, worker, token) {
  try {
    return await startDevtools({ port, worker, token });
  } catch (e) {
    if (e?.code !== 'EADDRINUSE') throw e;
    return startDevtools({ port: 0, worker, token });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8790' }, worker: { type: 'string' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number (0-65535), not ${values.port}`);
    process.exit(2);
  }
  // From the environment, not the command line, where other users of the machine could read it.
  const page = await startDevtoolsNear(port, values.worker, process.env.WORKER_TOKEN || undefined);
  console.log(`devtools page: ${page.url}`);
}
