#!/usr/bin/env node
// Serves the devtools page (www/devtools/) and the built package (pkg/, as `./pkg/`) on 127.0.0.1, as
// static files; with a worker URL, also proxies `live/*` to that worker so the page can send calls to it
// (live mode) without leaving its origin. The worker wants a caller's token: the proxy adds it, so the
// token stays in this process and never reaches the page, its URL or its share links. Used by
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

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
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

/** Forwards `live/<rest>` to the worker: same method, body and content type, and the token if any. */
async function proxy(req, res, worker, token, rest) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  try {
    const answer = await fetch(`${worker}/${rest}`, {
      method: req.method,
      headers: {
        ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : Buffer.concat(chunks),
    });
    send(res, answer.status, answer.headers.get('content-type') ?? 'application/octet-stream', Buffer.from(await answer.arrayBuffer()));
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
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (pathname === '/live/status') {
      return send(res, 200, 'application/json', JSON.stringify(base ? { live: true, worker: base } : { live: false }));
    }
    if (pathname.startsWith('/live/')) {
      if (!base) return problem(res, 503, 'no_worker', 'no worker: start the page with scripts/run.sh for live mode');
      return proxy(req, res, base, token, pathname.slice('/live/'.length));
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
