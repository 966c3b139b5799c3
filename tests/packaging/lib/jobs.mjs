// What the packaging rows share: the row's context, commands run in its folder, a job's result read
// from a process, an HTTP server started from a build and asked for the job, wrangler's environment
// and workerd serving a bundle.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expectJob } from './check.mjs';
import { Fail, gist, lastJson, must } from './proc.mjs';
import { WORK, bin } from './setup.mjs';

/**
 * @typedef {object} Ctx
 * @property {string} name the row
 * @property {string} dir its folder, prepared (fixture copied, tarball installed)
 * @property {string} tarball the packed package
 * @property {(text: string) => void} log appends to the row's log
 * @property {(row: string) => Promise<string>} rowDir another row's folder, prepared once per run
 *
 * @typedef {object} Row
 * @property {string} name
 * @property {string} [fixture] fixtures/<fixture>/ (default: the name; absent folders are fine)
 * @property {string[]} [shared] files of fixtures/_shared/ copied beside the fixture
 * @property {'module' | 'commonjs' | null} [type] the folder's package.json `type` (default module; null: none)
 * @property {boolean} [install] install the tarball into the folder (default true)
 * @property {boolean} [dev] install it as a devDependency (what `sv create` and many starters do)
 * @property {(ctx: Ctx) => Promise<string | void>} run
 */

/**
 * A command in the row's folder that must succeed.
 * @param {Ctx} ctx
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('./proc.mjs').RunOptions} [opts]
 */
export const sh = (ctx, cmd, args, opts = {}) => must(cmd, args, { cwd: ctx.dir, log: ctx.log, ...opts });

/**
 * Runs a script with node and asserts the JSON result it prints.
 * @param {Ctx} ctx
 * @param {string[]} args node's arguments (flags, then the script)
 * @param {{ cwd?: string, where?: string }} [o]
 */
export async function nodeJob(ctx, args, { cwd = ctx.dir, where } = {}) {
  const r = await sh(ctx, process.execPath, args, { cwd });
  expectJob(lastJson(r.stdout), { where });
}

/**
 * Runs a bundle alone: copied into a fresh folder with nothing beside it, so a bundle that still needs
 * the .wasm (or anything from node_modules) fails here.
 * @param {Ctx} ctx
 * @param {string} file the bundle, relative to the row's folder
 * @param {string} [where]
 */
export async function runAlone(ctx, file, where) {
  const alone = join(WORK, `${ctx.name}.alone`, where ?? 'run');
  mkdirSync(alone, { recursive: true });
  copyFileSync(join(ctx.dir, file), join(alone, basename(file)));
  await nodeJob(ctx, [basename(file)], { cwd: alone, where });
}

/**
 * GETs `url` and returns the job's result: the JSON body of a route, or the JSON text of the
 * `<pre id="result">` a server component rendered.
 * @param {string} url
 * @param {'json' | 'html'} as
 */
export async function fetchJob(url, as) {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  const body = await res.text();
  if (res.status !== 200) throw new Fail(`${url} answered HTTP ${res.status}: ${gist(body)}`);
  if (as === 'json') return JSON.parse(body);
  const pre = /<pre id="result">([^<]*)<\/pre>/.exec(body);
  if (!pre) throw new Fail(`${url} rendered no <pre id="result">: ${gist(body)}`);
  /** @type {Record<string, string>} */
  const entities = { quot: '"', amp: '&', lt: '<', gt: '>', '#x27': "'", '#39': "'" };
  const text = pre[1].replace(/&(quot|amp|lt|gt|#x27|#39);/g, (_, e) => entities[e] ?? _);
  return JSON.parse(text);
}

/** Environment of wrangler: offline, no telemetry, no account, its files in the row's folder. */
export function wranglerEnv(/** @type {string} */ dir) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CI: '1',
    NO_COLOR: '1',
    WRANGLER_LOG_PATH: join(dir, '.wrangler-logs'),
    XDG_CONFIG_HOME: join(dir, '.config'),
  };
  for (const k of ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_API_KEY', 'CLOUDFLARE_EMAIL', 'CLOUDFLARE_ACCOUNT_ID']) delete env[k];
  return env;
}

/**
 * Starts workerd on `config`, fetches `/` once it answers, stops it.
 * @param {Ctx} ctx
 * @param {string} config
 * @param {number} port
 * @param {string} [path] what to GET (default `/`)
 */
export async function fetchFromWorkerd(ctx, config, port, path = '/') {
  let output = '';
  const child = spawn(bin('root', 'workerd'), ['serve', config], { cwd: ctx.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  try {
    for (let i = 0; i < 150; i++) {
      if (child.exitCode !== null) throw new Fail(`workerd exited ${child.exitCode}: ${gist(output)}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2_000) });
        const body = await res.text();
        if (res.status !== 200) throw new Fail(`the worker answered HTTP ${res.status}: ${gist(`${body}\n${output}`)}`);
        return JSON.parse(body);
      } catch (e) {
        if (e instanceof Fail) throw e;
        await sleep(100);
      }
    }
    throw new Fail(`workerd did not answer on 127.0.0.1:${port}: ${gist(output)}`);
  } finally {
    child.kill('SIGKILL');
    ctx.log(`workerd output:\n${output}\n`);
  }
}

/**
 * Starts a server (`cmd args` in `cwd`, its own process group) on a free port the caller put in its
 * arguments or environment, waits until `url` + `probe` answers at all, runs `f` with the base URL, and
 * stops the whole group afterwards; the server's output goes to the row's log.
 * @template T
 * @param {Ctx} ctx
 * @param {{ cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv, url: string, probe?: string, what: string }} o
 * @param {(url: string) => Promise<T>} f
 */
export async function withServerProcess(ctx, { cmd, args, cwd, env = process.env, url, probe = '/', what }, f) {
  let output = '';
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Fail(`${what} exited ${child.exitCode}: ${gist(output)}`);
      if (i >= 300) throw new Fail(`${what} did not answer on ${url}: ${gist(output)}`);
      try {
        await fetch(`${url}${probe}`, { signal: AbortSignal.timeout(2_000) });
        break;
      } catch {
        await sleep(100);
      }
    }
    return await f(url);
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    ctx.log(`${what} output:\n${output}\n`);
  }
}

/**
 * Writes a workerd configuration serving wrangler's output as it is (the main module first, then each
 * `.wasm` it imports by name) on `port`, with `flags` as the compatibility flags; returns its path.
 * @param {Ctx} ctx
 * @param {{ dist: string, main: string, wasm: string[], port: number, flags?: string[] }} o
 */
export function workerdConfig(ctx, { dist, main, wasm, port, flags = [] }) {
  const emb = (/** @type {string} */ f) => JSON.stringify(relative(ctx.dir, join(dist, f)));
  const modules = [`(name = "${main}", esModule = embed ${emb(main)})`, ...wasm.map((w) => `(name = "${w}", wasm = embed ${emb(w)})`)];
  const config = join(ctx.dir, 'config.capnp');
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules.join(', ')} ],
  compatibilityDate = "2025-01-01",
  compatibilityFlags = ${JSON.stringify(flags)},
);
`,
  );
  return 'config.capnp';
}
