// Runs the worker in workerd (the npm `workerd` binary, no wrangler), the way Cloudflare runs it: ES
// modules, the package imported by its name through its `workerd` entry with the `.wasm` as a compiled
// module, the Durable Object namespaces with SQLite storage on local disk, an R2 bucket `FILES` on local
// disk (plain workerd has none: `local-r2.js`, a wrapped binding over a disk service), outbound fetch
// allowed to 127.0.0.1 (where a local sandbox listens). Everything it runs comes from this folder's own
// node_modules (the package, jose, workerd), so a copy of the folder runs it alone.
//
// From a shell, with the settings `wrangler deploy` would use (the `[vars]` of wrangler.toml, the secrets of
// .dev.vars, as `wrangler dev` reads them):
//
//   node serve.mjs [--config wrangler.toml] [--env-file .dev.vars] [--var NAME=VALUE]… [--port 8787] [--state-dir DIR]
//
// From a program (the end-to-end tests, scripts/run.sh, test rigs outside this repository):
//
//   const w = await startWorker({ env: { SANDBOX_URL, SANDBOX_DIALECT, GATE_CONFIG }, stateDir });
//   await fetch(`${w.url}/conversations/c1/tool-calls`, …); await w.stop();
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, parseEnv } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const HERE = dirname(fileURLToPath(import.meta.url));
const PKG_NAME = 'code-session-gate';

/** The worker's dependencies, as worker/package-lock.json pins them. */
const DEPS = [PKG_NAME, 'jose', 'workerd', 'smol-toml', 'ajv', '@seriousme/openapi-schema-validator'];

/**
 * Installs the worker's dependencies (the built package, `file:../pkg`, and `jose`) into
 * worker/node_modules when one is missing: what wrangler, workerd (below) and the plain-host runs
 * (host.mjs) resolve them from. scripts/setup.sh installs them first, so this normally finds them in
 * place or in npm's cache; idempotent.
 */
export function ensureWorkerDeps() {
  if (DEPS.every((d) => existsSync(join(HERE, 'node_modules', d, 'package.json')))) return;
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: HERE,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
}

/**
 * workerd's native binary, as the `workerd` package names it. Not `node_modules/.bin/workerd`: installed
 * without its install script (`npm ci --ignore-scripts`) that is a Node wrapper, and stopping the wrapper
 * would leave the real workerd running.
 */
function workerdBinary() {
  const require = createRequire(join(HERE, 'package.json'));
  return /** @type {string} */ (require('workerd').default);
}

/** The package as this folder installed it (in the repository, a link to the built pkg/). */
function installedPackage() {
  const dir = join(HERE, 'node_modules', PKG_NAME);
  return existsSync(dir) ? realpathSync(dir) : dir;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => done(port));
    });
  });
}

/** The package's files reachable from `entry` by relative imports (our files only use `from './x'`). */
export function reachable(pkgDir, entry) {
  const seen = new Set();
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.js')) continue;
    for (const m of readFileSync(join(pkgDir, file), 'utf8').matchAll(/\bfrom\s+['"]\.\/([^'"]+)['"]/g)) todo.push(m[1]);
  }
  return [...seen];
}

/** Every file below `dir`, as paths relative to it. */
function filesUnder(dir, prefix = '') {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? filesUnder(dir, join(prefix, d.name)) : [join(prefix, d.name)],
  );
}

/**
 * `jose` for workerd: its Web-API build keeps its tree (its modules import each other by `../` paths, so
 * they keep their relative places under `jose/`), and the bare name `jose` is a one-line module that
 * re-exports its entry. wrangler bundles the same files from node_modules for a deploy.
 * @param {(file: string) => string} emb
 */
function joseModules(emb) {
  const dir = join(HERE, 'node_modules', 'jose', 'dist', 'webapi');
  if (!existsSync(dir)) throw new Error(`${dir} missing: run scripts/setup.sh`);
  return [
    `(name = "jose", esModule = ${text('export * from "./jose/index.js";')})`,
    ...filesUnder(dir)
      .filter((f) => f.endsWith('.js'))
      .sort()
      .map((f) => `(name = ${text(`jose/${f}`)}, esModule = embed ${emb(join(dir, f))})`),
  ];
}

/** A capnp text literal. */
const text = (s) => JSON.stringify(String(s));

/**
 * Writes the workerd config for the worker into `stateDir` and returns its path.
 * @param {{ port: number, env: Record<string, string>, stateDir: string, pkgDir: string }} o
 */
function writeConfig({ port, env, stateDir, pkgDir }) {
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const entry = manifest.exports['.'].workerd.default.replace(/^\.\//, '');
  const emb = (file) => text(relative(stateDir, file));
  const workerFiles = readdirSync(join(HERE, 'src')).filter((f) => f.endsWith('.js')).sort();
  // workerd resolves a bare specifier beside the importing module, so the worker's modules sit at the
  // root of the module tree with the bare name of the package, a one-line module that re-exports its
  // entry; the package's files keep their relative places under `code-session-gate/` (as jose's do), so
  // that their names cannot clash with the worker's (both have an errors.js).
  const here = `./${PKG_NAME}/${entry}`;
  const modules = [
    // The main module first.
    `(name = "index.js", esModule = embed ${emb(join(HERE, 'src', 'index.js'))})`,
    ...workerFiles.filter((f) => f !== 'index.js').map((f) => `(name = "${f}", esModule = embed ${emb(join(HERE, 'src', f))})`),
    `(name = "${PKG_NAME}", esModule = ${text(`export * from "${here}"; export { default } from "${here}";`)})`,
    ...reachable(pkgDir, entry).map(
      (f) => `(name = ${text(`${PKG_NAME}/${f}`)}, ${f.endsWith('.wasm') ? 'wasm' : 'esModule'} = embed ${emb(join(pkgDir, f))})`,
    ),
    ...joseModules(emb),
  ];
  const bindings = [
    ...Object.entries(env).map(([k, v]) => `(name = ${text(k)}, text = ${text(v)})`),
    `(name = "CONVERSATIONS", durableObjectNamespace = "Conversation")`,
    `(name = "USERS", durableObjectNamespace = "User")`,
    `(name = "FILES", wrapped = (moduleName = "code-session-gate-local:r2", innerBindings = [(name = "disk", service = "r2-disk")]))`,
  ];
  const disk = join(stateDir, 'durable-objects');
  mkdirSync(disk, { recursive: true });
  const r2 = join(stateDir, 'r2');
  mkdirSync(r2, { recursive: true });
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "net", network = (allow = ["public", "private", "local"])),
    (name = "do-disk", disk = (path = ${text(disk)}, writable = true)),
    (name = "r2-disk", disk = (path = ${text(r2)}, writable = true)),
  ],
  extensions = [
    (modules = [(name = "code-session-gate-local:r2", esModule = embed ${emb(join(HERE, 'local-r2.js'))}, internal = true)]),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    ${modules.join(',\n    ')}
  ],
  compatibilityDate = "2025-01-01",
  bindings = [
    ${bindings.join(',\n    ')}
  ],
  durableObjectNamespaces = [
    (className = "Conversation", uniqueKey = "code-session-gate-conversation", enableSql = true),
    (className = "User", uniqueKey = "code-session-gate-user", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "do-disk"),
  globalOutbound = "net",
);
`;
  const file = join(stateDir, 'worker.capnp');
  writeFileSync(file, config);
  return file;
}

/**
 * Starts the worker in workerd on 127.0.0.1 and waits until it answers.
 * @param {{ env: Record<string, string>, stateDir?: string, port?: number, pkgDir?: string, log?: (line: string) => void }} options
 * `stateDir` holds the config and the Durable Objects' storage: start again with the same one to find
 * the same conversations.
 * @returns {Promise<{ url: string, port: number, stateDir: string, output: () => string, stop(): Promise<void>, kill(): Promise<void> }>}
 * `kill()` ends workerd at once (SIGKILL), as a crash would: what it had not written is lost.
 */
export async function startWorker({ env, stateDir, port, pkgDir = installedPackage(), log } = {}) {
  let bin;
  try {
    bin = workerdBinary();
  } catch {
    throw new Error(`workerd missing: run npm ci in ${HERE}`);
  }
  if (!existsSync(bin)) throw new Error(`${bin} missing: run npm ci in ${HERE}`);
  if (!existsSync(join(pkgDir, 'package.json'))) throw new Error(`${pkgDir} has no package: build it (scripts/build.sh in the repository) or npm install code-session-gate`);
  const dir = stateDir ?? mkdtempSync(join(tmpdir(), 'csg-worker-'));
  mkdirSync(dir, { recursive: true });
  const at = port ?? (await freePort());
  const config = writeConfig({ port: at, env, stateDir: dir, pkgDir });
  let output = '';
  const child = spawn(bin, ['serve', config, '--experimental'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const take = (d) => {
    output += d;
    if (log) for (const line of String(d).split('\n')) if (line.trim()) log(line);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const url = `http://127.0.0.1:${at}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`workerd exited (${child.exitCode}):\n${output}`);
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (i > 150) {
        child.kill('SIGKILL');
        throw new Error(`workerd did not answer on ${url}:\n${output}`);
      }
      await sleep(100);
    }
  }
  return {
    url,
    port: at,
    stateDir: dir,
    output: () => output,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const quick = await Promise.race([exited.then(() => true), sleep(3000).then(() => false)]);
      if (!quick) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/**
 * The worker's settings as `wrangler deploy` / `wrangler dev` would give them: the `[vars]` of its wrangler
 * config (`[env.<name>.vars]` is not read), then the secrets of an env file (`.dev.vars`, dotenv syntax),
 * then `--var` overrides. Non-string vars are passed as JSON, as wrangler does.
 * @param {{ config?: string, envFile?: string, vars?: string[] }} o
 */
export async function settingsFrom({ config = join(HERE, 'wrangler.toml'), envFile = join(HERE, '.dev.vars'), vars = [] } = {}) {
  const { parse } = await import('smol-toml');
  /** @type {Record<string, string>} */
  const env = {};
  const toml = /** @type {any} */ (parse(readFileSync(config, 'utf8')));
  for (const [k, v] of Object.entries(toml.vars ?? {})) env[k] = typeof v === 'string' ? v : JSON.stringify(v);
  if (existsSync(envFile)) Object.assign(env, parseEnv(readFileSync(envFile, 'utf8')));
  for (const pair of vars) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--var takes NAME=VALUE, not ${pair}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      config: { type: 'string', default: join(HERE, 'wrangler.toml') },
      'env-file': { type: 'string', default: join(HERE, '.dev.vars') },
      var: { type: 'string', multiple: true, default: [] },
      port: { type: 'string', default: '8787' },
      'state-dir': { type: 'string', default: join(HERE, '.wrangler', 'serve-state') },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log('usage: node serve.mjs [--config wrangler.toml] [--env-file .dev.vars] [--var NAME=VALUE]… [--port 8787] [--state-dir DIR]');
    process.exit(0);
  }
  ensureWorkerDeps();
  const env = await settingsFrom({ config: values.config, envFile: values['env-file'], vars: values.var });
  // Port 0: a free one, announced in the line below.
  const w = await startWorker({ env, stateDir: resolve(values['state-dir']), port: Number(values.port) || undefined, log: (line) => console.log(line) });
  console.log(JSON.stringify({ listening: w.url, stateDir: w.stateDir }));
  const stop = () => void w.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
