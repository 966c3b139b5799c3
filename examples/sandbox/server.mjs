#!/usr/bin/env node
// Local code sandbox for tests and demos. One process serves two dialects:
//   /codeapi/...  the official Code API (stateless, authorized file refs)
//   /lci/...      LibreCodeInterpreter (stateful sessions, keep-alive quirk)
// plus /__control/... for fault injection and wire statistics.
//
// NOT a security sandbox: submitted code runs as the current user.
import { createServer } from 'node:http';
import { mkdtemp, mkdir, realpath, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ObjectStore } from './store.mjs';
import { readBody, sendJson } from './http.mjs';
import { FaultQueue, Stats, applyFault, handleControl } from './faults.mjs';
import { createCodeapi } from './codeapi.mjs';
import { createLci } from './lci.mjs';
import { jwtVerifier } from './jwt.mjs';

const BASES = /** @type {const} */ ({ codeapi: 'codeapi', lci: 'librecodeinterpreter' });

/**
 * @typedef {object} SandboxOptions
 * @property {number} [port]         0 (default) picks a free port
 * @property {string} [dataDir]      default: a fresh directory under os.tmpdir(), removed by close()
 * @property {number} [keepaliveMs]  LCI keep-alive interval, default 3000
 * @property {string} [apiKey]       LCI API key, default "test-key"
 * @property {(msg: string) => void} [log]  warnings; default: stderr
 * @property {number} [fileTtlMs]  how long a storage session's files live (default: forever); the real
 *   servers keep them about a day. `POST /__control/expire` drops them at once.
 * @property {import('./jwt.mjs').JwtSettings} [codeapiJwt]  codeapi's production auth: verify every
 *   codeapi request's token as the real server does (the default reads any bearer as the user)
 */

/**
 * @typedef {object} Sandbox
 * @property {string} url         http://127.0.0.1:PORT
 * @property {string} codeapiUrl  base URL for the codeapi dialect
 * @property {string} lciUrl      base URL for the librecodeinterpreter dialect
 * @property {number} port
 * @property {string} dataDir
 * @property {{ header: any, claims: any }[]} codeapiTokens  the codeapi tokens accepted (with `codeapiJwt`)
 * @property {() => Promise<void>} close
 */

/**
 * Start the sandbox on 127.0.0.1.
 * @param {SandboxOptions} [options]
 * @returns {Promise<Sandbox>}
 */
export async function startSandbox(options = {}) {
  const { port = 0, keepaliveMs = 3000, apiKey = 'test-key' } = options;
  const log = options.log ?? ((msg) => process.stderr.write(`[sandbox] ${msg}\n`));
  const requested = options.dataDir ? resolve(options.dataDir) : await mkdtemp(join(tmpdir(), 'code-sandbox-'));
  await mkdir(requested, { recursive: true });
  // Real path, so the exec dir in a child's output (pwd, tracebacks) is
  // spelled exactly as we replace it back to /mnt/data.
  const dataDir = await realpath(requested);
  const execRoot = join(dataDir, 'exec');
  const scratchRoot = join(dataDir, 'scratch');
  await Promise.all([execRoot, scratchRoot, join(dataDir, 'objects')].map((d) => mkdir(d, { recursive: true })));

  /** @type {Set<() => void>} */
  const active = new Set();
  /** Whether a request's Host names this server (set once it listens, on its port). */
  let allowedHost = (/** @type {string | undefined} */ _host) => false;
  const store = new ObjectStore(join(dataDir, 'objects'), { ttlMs: options.fileTtlMs });
  const faults = new FaultQueue();
  const stats = new Stats();
  const jwt = options.codeapiJwt ? jwtVerifier(options.codeapiJwt) : undefined;
  const dialects = {
    codeapi: createCodeapi({ store, execRoot, scratchRoot, active, log, jwt }),
    librecodeinterpreter: createLci({ store, execRoot, scratchRoot, active, apiKey, keepaliveMs, log }),
  };

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:http').ServerResponse} res
   */
  async function handle(req, res) {
    // A page of any origin can resolve its own name to 127.0.0.1 (DNS rebinding) and then reach this
    // server, which runs code: only requests addressed to this server by its loopback names are served.
    if (!allowedHost(req.headers.host)) {
      sendJson(res, 421, { error: 'Misdirected request: this sandbox answers only to 127.0.0.1, localhost or [::1] with its port' });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const segments = url.pathname.split('/').filter(Boolean).map((s) => { try { return decodeURIComponent(s); } catch { return s; } });
    const dialectName = BASES[/** @type {keyof typeof BASES} */ (segments[0])] ?? null;
    const rest = dialectName ? segments.slice(1) : segments;
    if (rest[0] !== '__control') stats.recordPath(req.method ?? '', req.url ?? '');
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    let body = Buffer.alloc(0);
    if (hasBody) {
      try {
        body = await readBody(req);
      } catch (err) {
        const status = /** @type {any} */ (err).status ?? 400;
        sendJson(res, status, { error: status === 413 ? 'Request body too large' : 'Could not read request body' });
        return;
      }
    }
    if (rest[0] === '__control') {
      handleControl({ req, res, segments: rest.slice(1), body, dialect: dialectName, faults, stats, store });
      return;
    }
    if (!dialectName) {
      sendJson(res, 404, { error: 'Not found', bases: ['/codeapi', '/lci', '/__control'] });
      return;
    }
    const dialect = dialects[dialectName];
    stats.recordRequest(dialectName);
    if (req.method === 'POST' && rest[0] === 'exec' && rest.length === 1) stats.recordExec(dialectName, req.headers, body);
    const fault = faults.take(dialectName, rest);
    if (fault && await applyFault(fault, { req, res, dialect: dialectName, segments: rest, keepaliveMs, headers: dialect.headers })) return;
    try {
      await dialect.handle(req, res, { segments: rest, query: url.searchParams, body });
    } catch (err) {
      log(`${dialectName}: unhandled error on ${req.method} ${url.pathname}: ${/** @type {Error} */ (err)?.stack ?? err}`);
      if (!res.headersSent) sendJson(res, 500, dialect.internalError(), dialect.headers);
      else if (!res.writableEnded) res.end();
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      // Last line of defence: never let one request take the process down.
      log(`unhandled error: ${err?.stack ?? err}`);
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error' });
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  // Long execs (up to 120 s) must not be cut off by Node's request timeout.
  server.requestTimeout = 0;

  await new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => { server.off('error', reject); resolvePromise(undefined); });
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const url = `http://127.0.0.1:${address.port}`;
  const hosts = new Set(['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${address.port}`));
  allowedHost = (/** @type {string | undefined} */ host) => host !== undefined && hosts.has(host.toLowerCase());

  let closing;
  return {
    url,
    codeapiUrl: `${url}/codeapi`,
    lciUrl: `${url}/lci`,
    port: address.port,
    dataDir,
    codeapiTokens: jwt?.accepted ?? [],
    close() {
      closing ??= (async () => {
        // Running jobs would otherwise outlive the server until their timeout.
        for (const kill of active) kill();
        await new Promise((resolvePromise) => {
          server.close(() => resolvePromise(undefined));
          server.closeAllConnections();
        });
        // A data dir we invented is ours to remove; one the caller named is theirs.
        if (!options.dataDir) await rm(dataDir, { recursive: true, force: true }).catch(() => {});
      })();
      return closing;
    },
  };
}

/**
 * @param {string[]} argv
 * @returns {SandboxOptions}
 */
function parseArgs(argv) {
  /** @type {SandboxOptions} */
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const int = () => {
      const v = Number(value());
      if (!Number.isInteger(v) || v < 0) throw new Error(`${flag} needs a non-negative integer`);
      return v;
    };
    if (flag === '--port') options.port = int();
    else if (flag === '--data-dir') options.dataDir = value();
    else if (flag === '--keepalive-ms') options.keepaliveMs = Math.max(1, int());
    else if (flag === '--api-key') options.apiKey = value();
    else if (flag === '--file-ttl-ms') options.fileTtlMs = Math.max(1, int());
    else if (flag === '--help' || flag === '-h') {
      process.stdout.write('usage: node examples/sandbox/server.mjs [--port N] [--data-dir DIR] [--keepalive-ms N] [--api-key KEY] [--file-ttl-ms N]\n');
      process.exit(0);
    } else throw new Error(`unknown argument: ${arg}`);
  }
  return options;
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${/** @type {Error} */ (err).message}\n`);
    process.exit(2);
  }
  process.on('unhandledRejection', (err) => process.stderr.write(`[sandbox] unhandled rejection: ${/** @type {any} */ (err)?.stack ?? err}\n`));
  const sandbox = await startSandbox(options);
  const stop = () => { sandbox.close().then(() => process.exit(0)); };
  // Registered before announcing, so a caller may signal as soon as it reads the line.
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Exactly one line on stdout: scripts and tests parse it.
  process.stdout.write(`${JSON.stringify({ listening: sandbox.url, codeapi: sandbox.codeapiUrl, librecodeinterpreter: sandbox.lciUrl })}\n`);
}

const invokedAs = process.argv[1] ? (() => { try { return pathToFileURL(realpathSync(process.argv[1])).href; } catch { return ''; } })() : '';
if (invokedAs === import.meta.url) {
  main().catch((err) => {
    process.stderr.write(`[sandbox] failed to start: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
