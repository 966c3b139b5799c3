// The packaging rows of the frameworks and deployers that build a server around the package: Next.js,
// Nitro (Nuxt's server engine) on Node and on Workers, SvelteKit with adapter-node, Bun's compiled
// binaries, and @vercel/nft's trace (what Nitro's node presets and other tracing deployers ship). Each builds as the framework's docs say, runs the build (alone where it deploys that way) and
// calls both modules over HTTP or in the process.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expectJob } from './lib/check.mjs';
import { Fail, lastJson, must } from './lib/proc.mjs';
import { bin, bunBinary } from './lib/setup.mjs';
import { fetchFromWorkerd, fetchJob, sh, withServerProcess, workerdConfig, wranglerEnv } from './lib/jobs.mjs';
import { freePort } from './lib/web.mjs';

/** @typedef {import('./lib/jobs.mjs').Ctx} Ctx @typedef {import('./lib/jobs.mjs').Row} Row */

/**
 * A fresh folder outside the repository (no node_modules in any folder above it), where a build output
 * is copied to run on its own, as it is deployed.
 * @param {Ctx} ctx
 */
const aloneDir = (ctx) => mkdtempSync(join(tmpdir(), `csg-${ctx.name}-`));

/** Environment of Nitro's build: no telemetry, production. */
const nitroEnv = (/** @type {string} */ preset) => ({ ...process.env, NITRO_PRESET: preset, NODE_ENV: 'production', NO_COLOR: '1' });

/** Environment of Next.js: no telemetry, production. */
const nextEnv = () => ({ ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' });

/** @type {Map<string, Promise<string>>} */
const nextBuilds = new Map();
/**
 * `next build` of the nextjs fixture once per bundler (`turbopack`, Next 16's default, or `webpack`),
 * in the folder of the row `row` (one per bundler); resolves to that folder.
 * @param {Ctx} ctx
 * @param {string} row
 * @param {'turbopack' | 'webpack'} bundler
 */
function nextBuild(ctx, row, bundler) {
  if (!nextBuilds.has(row)) {
    nextBuilds.set(
      row,
      (async () => {
        const dir = await ctx.rowDir(row);
        const args = ['build', ...(bundler === 'webpack' ? ['--webpack'] : [])];
        await must(bin('local', 'next'), args, { cwd: dir, env: nextEnv(), log: ctx.log, timeoutMs: 240_000 });
        return dir;
      })(),
    );
  }
  return /** @type {Promise<string>} */ (nextBuilds.get(row));
}

/**
 * `next start` in `dir` on a free port while `f` runs with its base URL.
 * @template T
 * @param {Ctx} ctx
 * @param {string} dir
 * @param {(url: string) => Promise<T>} f
 */
async function withNextStart(ctx, dir, f) {
  const port = await freePort();
  const args = ['start', '-p', String(port), '-H', '127.0.0.1'];
  const url = `http://127.0.0.1:${port}`;
  return withServerProcess(ctx, { cmd: bin('local', 'next'), args, cwd: dir, env: nextEnv(), url, probe: '/_next/static/none', what: 'next start' }, f);
}

/**
 * A Next.js row: the app built once per bundler (in the folder of the row `owner`, which installs the
 * package), started, and `path` called over HTTP.
 * @param {string} name
 * @param {string} owner
 * @param {'turbopack' | 'webpack'} bundler
 * @param {string} path
 * @param {'json' | 'html'} as
 * @returns {Row}
 */
function nextRow(name, owner, bundler, path, as) {
  return {
    name,
    fixture: 'nextjs',
    shared: ['job.mjs'],
    // No "type" field, as create-next-app makes it: Next 16's webpack build of an edge route fails in a
    // "type": "module" app whatever the route imports (its route_client-reference-manifest.js is never
    // written), a Next.js bug outside this package; "commonjs" fails Turbopack on the routes' ESM.
    type: null,
    install: name === owner,
    async run(ctx) {
      const dir = await nextBuild(ctx, owner, bundler);
      expectJob(await withNextStart(ctx, dir, (url) => fetchJob(`${url}${path}`, as)));
      return `next build${bundler === 'webpack' ? ' --webpack' : ''} + next start: GET ${path}`;
    },
  };
}

/**
 * A Next.js row built with `output: 'standalone'` (in its own folder, `bundler` as in `nextRow`): the
 * `.next/standalone` folder copied alone (no node_modules of the project, nothing else of the build) and
 * its `server.js` started there, the node route and the server component called over HTTP.
 * @param {string} name
 * @param {'turbopack' | 'webpack'} bundler
 * @returns {Row}
 */
function nextStandaloneRow(name, bundler) {
  return {
    name,
    fixture: 'nextjs',
    shared: ['job.mjs'],
    type: null,
    async run(ctx) {
      writeFileSync(join(ctx.dir, 'next.config.mjs'), "export default { output: 'standalone' };\n");
      const args = ['build', ...(bundler === 'webpack' ? ['--webpack'] : [])];
      await sh(ctx, bin('local', 'next'), args, { env: nextEnv(), timeoutMs: 240_000 });
      const standalone = join(ctx.dir, '.next', 'standalone');
      // server.js sits where the app sits under the tracing root Next inferred (the repository here).
      const server = readdirSync(standalone, { recursive: true, encoding: 'utf8' }).find((f) => /(^|\/)server\.js$/.test(f) && !f.includes('node_modules'));
      if (!server) throw new Fail(`next build wrote no server.js under .next/standalone`);
      const alone = aloneDir(ctx);
      cpSync(standalone, alone, { recursive: true });
      const port = await freePort();
      const env = { ...nextEnv(), PORT: String(port), HOSTNAME: '127.0.0.1' };
      const cwd = join(alone, dirname(server));
      const url = `http://127.0.0.1:${port}`;
      await withServerProcess(ctx, { cmd: process.execPath, args: ['server.js'], cwd, env, url, probe: '/_next/static/none', what: 'node server.js' }, async (u) => {
        expectJob(await fetchJob(`${u}/api/node`, 'json'), { where: '/api/node' });
        expectJob(await fetchJob(`${u}/`, 'html'), { where: '/' });
      });
      return `next build${bundler === 'webpack' ? ' --webpack' : ''} (standalone), .next/standalone alone: GET /api/node, /`;
    },
  };
}

/**
 * A Nitro `cloudflare-module` build (`.output/server/index.mjs`, as Nitro and Nuxt write it) bundled by
 * wrangler (dry run) and served by workerd with nodejs_compat; answers the job `path` returned.
 * @param {Ctx} ctx
 * @param {string} path
 */
async function inWorkerd(ctx, path) {
  writeFileSync(
    join(ctx.dir, 'wrangler.toml'),
    'name = "csg-nitro"\nmain = ".output/server/index.mjs"\ncompatibility_date = "2025-01-01"\ncompatibility_flags = ["nodejs_compat"]\n',
  );
  await sh(ctx, bin('root', 'wrangler'), ['deploy', '--dry-run', '--outdir', 'dist'], { env: wranglerEnv(ctx.dir), timeoutMs: 180_000 });
  const dist = join(ctx.dir, 'dist');
  const files = readdirSync(dist).sort();
  const main = files.find((f) => f === 'index.js') ?? files.find((f) => /\.m?js$/.test(f));
  if (!main) throw new Fail(`wrangler wrote no JavaScript module to dist/ (${files.join(', ')})`);
  const wasm = files.filter((f) => f.endsWith('.wasm'));
  const port = await freePort();
  const config = workerdConfig(ctx, { dist, main, wasm, port, flags: ['nodejs_compat'] });
  return { main, wasm, result: await fetchFromWorkerd(ctx, config, port, path) };
}

/**
 * Copies a Nitro build's `.output/` into a folder of its own, runs its server there with `node` (the
 * runtime the framework asks for) and answers the job `path` returned.
 * @param {Ctx} ctx
 * @param {string} node
 * @param {string} path
 */
async function outputAlone(ctx, node, path) {
  const alone = aloneDir(ctx);
  cpSync(join(ctx.dir, '.output'), alone, { recursive: true });
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', NITRO_PORT: String(port), NITRO_HOST: '127.0.0.1' };
  const url = `http://127.0.0.1:${port}`;
  const result = await withServerProcess(ctx, { cmd: node, args: ['server/index.mjs'], cwd: alone, env, url, what: 'node .output/server/index.mjs' }, (u) => fetchJob(`${u}${path}`, 'json'));
  const traced = readdirSync(join(alone, 'server', 'node_modules', 'code-session-gate')).filter((f) => f.endsWith('.wasm'));
  return { result, traced };
}

/** Node 22 from the npm registry (the pinned `node22` alias): Nuxt 4.6 needs Node ≥ 22.22 to build. */
const node22 = () => join(dirname(dirname(bin('local', 'nuxt'))), 'node22', 'bin', 'node');

/** Environment of Nuxt's build: Node 22 first on PATH, no telemetry, production. */
const nuxtEnv = (/** @type {string} */ preset) => ({
  ...nitroEnv(preset),
  PATH: `${dirname(node22())}:${process.env.PATH ?? ''}`,
  NUXT_TELEMETRY_DISABLED: '1',
});

/**
 * A Nitro or Nuxt row: the fixture built with `preset`, then run as that preset deploys (node-server:
 * `.output/` alone; cloudflare-module: in workerd), the job asked of its route (Nitro `/`, Nuxt
 * `/api/gate`).
 * @param {string} name
 * @param {'nitro' | 'nuxt'} framework
 * @param {'node-server' | 'cloudflare-module'} preset
 * @returns {Row}
 */
function nitroRow(name, framework, preset) {
  const nuxt = framework === 'nuxt';
  const path = nuxt ? '/api/gate' : '/';
  return {
    name,
    fixture: framework,
    shared: ['job.mjs'],
    async run(ctx) {
      if (nuxt) await sh(ctx, node22(), [bin('local', 'nuxt'), 'build'], { env: nuxtEnv(preset), timeoutMs: 300_000 });
      else await sh(ctx, bin('local', 'nitropack'), ['build'], { env: nitroEnv(preset), timeoutMs: 300_000 });
      const built = `${nuxt ? 'nuxt' : 'nitropack'} build (${preset})`;
      if (preset === 'node-server') {
        const { result, traced } = await outputAlone(ctx, nuxt ? node22() : process.execPath, path);
        expectJob(result);
        return `${built}, .output/ alone: GET ${path} (traced: ${traced.join(', ')})`;
      }
      const { main, wasm, result } = await inWorkerd(ctx, path);
      expectJob(result);
      return `${built} + wrangler --dry-run + workerd: GET ${path}: ${main} + ${wasm.join(' + ')}`;
    },
  };
}

/** @type {Row[]} */
export const FRAMEWORK_ROWS = [
  // Next.js 16 (App Router), built (Turbopack, its default; webpack) and started: each route or page
  // called over HTTP. The default import everywhere, no next.config.
  nextRow('nextjs-node-route', 'nextjs-node-route', 'turbopack', '/api/node', 'json'),
  nextRow('nextjs-server-component', 'nextjs-node-route', 'turbopack', '/', 'html'),
  nextRow('nextjs-edge-route', 'nextjs-node-route', 'turbopack', '/api/edge', 'json'),
  nextRow('nextjs-webpack-node-route', 'nextjs-webpack-node-route', 'webpack', '/api/node', 'json'),
  nextRow('nextjs-webpack-server-component', 'nextjs-webpack-node-route', 'webpack', '/', 'html'),
  nextRow('nextjs-webpack-edge-route', 'nextjs-webpack-node-route', 'webpack', '/api/edge', 'json'),
  nextStandaloneRow('nextjs-standalone', 'turbopack'),
  nextStandaloneRow('nextjs-webpack-standalone', 'webpack'),

  // Nitro 2 (Nuxt 4's server engine) and Nuxt 4.6 (built with Node 22, which it needs), each with the
  // node-server preset (.output/ run alone: Nitro copies the package into .output/server/node_modules
  // with what @vercel/nft traces from its entries) and the cloudflare-module preset with
  // experimental.wasm (in workerd).
  nitroRow('nitro-node-server', 'nitro', 'node-server'),
  nitroRow('nitro-cloudflare-module', 'nitro', 'cloudflare-module'),
  nitroRow('nuxt-node-server', 'nuxt', 'node-server'),
  nitroRow('nuxt-cloudflare-module', 'nuxt', 'cloudflare-module'),
  // SvelteKit 2 + adapter-node with the package as a devDependency (adapter-node bundles those into
  // build/): build/ and package.json run alone, as adapter-node's docs deploy it without node_modules.
  {
    name: 'sveltekit-adapter-node',
    fixture: 'sveltekit-node',
    shared: ['job.mjs'],
    dev: true,
    async run(ctx) {
      await sh(ctx, bin('local', 'vite'), ['build', '--logLevel', 'warn'], { env: { ...process.env, NODE_ENV: 'production' }, timeoutMs: 180_000 });
      const alone = aloneDir(ctx);
      cpSync(join(ctx.dir, 'build'), join(alone, 'build'), { recursive: true });
      cpSync(join(ctx.dir, 'package.json'), join(alone, 'package.json'));
      const port = await freePort();
      const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1' };
      const url = `http://127.0.0.1:${port}`;
      expectJob(await withServerProcess(ctx, { cmd: process.execPath, args: ['build'], cwd: alone, env, url, what: 'node build' }, (u) => fetchJob(`${u}/`, 'json')));
      return 'vite build (adapter-node, devDependency), build/ alone: GET /';
    },
  },
  // `bun build --compile` with the default import: the binary run alone; and `--target=bun`'s output
  // folder run alone by bun.
  {
    name: 'bun-compile',
    shared: ['job.mjs'],
    async run(ctx) {
      const env = { ...process.env, DO_NOT_TRACK: '1' };
      await sh(ctx, bunBinary(), ['build', '--compile', 'index.mjs', '--outfile', 'dist/app'], { env, timeoutMs: 120_000 });
      const alone = aloneDir(ctx);
      cpSync(join(ctx.dir, 'dist', 'app'), join(alone, 'app'));
      expectJob(lastJson((await must(join(alone, 'app'), [], { cwd: alone, log: ctx.log, env })).stdout), { where: 'compiled binary' });
      await sh(ctx, bunBinary(), ['build', 'index.mjs', '--target=bun', '--outdir', 'dist-bun'], { env });
      const out = join(alone, 'dist-bun');
      cpSync(join(ctx.dir, 'dist-bun'), out, { recursive: true });
      expectJob(lastJson((await must(bunBinary(), ['index.js'], { cwd: out, log: ctx.log, env })).stdout), { where: '--target=bun' });
      return `compiled binary alone; --target=bun: ${readdirSync(out).join(', ')}`;
    },
  },
  // @vercel/nft's trace of an ESM and a CommonJS entry, copied alone and run: the files a tracing
  // deployer ships must include both .wasm.
  {
    name: 'nft-trace',
    shared: ['job.mjs'],
    async run(ctx) {
      const { nodeFileTrace } = await import('@vercel/nft');
      const { fileList } = await nodeFileTrace([join(ctx.dir, 'index.mjs'), join(ctx.dir, 'index.cjs')], { base: ctx.dir });
      const alone = aloneDir(ctx);
      for (const f of fileList) {
        mkdirSync(dirname(join(alone, f)), { recursive: true });
        cpSync(join(ctx.dir, f), join(alone, f));
      }
      const wasm = [...fileList].filter((f) => f.endsWith('.wasm'));
      if (wasm.length !== 2) throw new Fail(`nft traced ${wasm.length} .wasm files, not 2: ${[...fileList].join(', ')}`);
      for (const entry of ['index.mjs', 'index.cjs']) {
        expectJob(lastJson((await must(process.execPath, [entry], { cwd: alone, log: ctx.log })).stdout), { where: entry });
      }
      return `traced ${fileList.size} files: ${wasm.map((f) => f.replace(/^.*\//, '')).join(', ')}`;
    },
  },
];
