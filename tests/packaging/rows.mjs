// The rows of the packaging matrix: per row, its fixture (fixtures/<fixture ?? name>/, plus the files of
// fixtures/_shared/ it lists), the package.json `type` of its folder, and the recipe: build, run, assert.
// A row works when `run` resolves (to an optional note); it fails with the message of what it throws.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FRAMEWORK_ROWS } from './frameworks.mjs';
import { expectJob, problems } from './lib/check.mjs';
import { fetchFromWorkerd, nodeJob, runAlone, sh, workerdConfig, wranglerEnv } from './lib/jobs.mjs';
import { Fail, gist, lastJson, must, run } from './lib/proc.mjs';
import { CHECK_SDK_DIR, PKG_DIR, TSC5, WORK, bin, bunBinary } from './lib/setup.mjs';
import { freePort, loadPage, serveStatic } from './lib/web.mjs';

/** @typedef {import('./lib/jobs.mjs').Ctx} Ctx @typedef {import('./lib/jobs.mjs').Row} Row */





/**
 * Bundles the row's index.js with esbuild (`flags`: platform and format) into dist/app.cjs, runs it with
 * node alone in a folder of its own (no package beside it), and returns what it printed.
 * @param {Ctx} ctx
 * @param {string[]} flags
 */
async function bundleAndRunAlone(ctx, flags) {
  await sh(ctx, bin('local', 'esbuild'), ['index.js', '--bundle', ...flags, '--outfile=dist/app.cjs', '--log-level=warning']);
  const alone = join(WORK, `${ctx.name}.alone`);
  mkdirSync(alone, { recursive: true });
  copyFileSync(join(ctx.dir, 'dist/app.cjs'), join(alone, 'app.cjs'));
  return (await sh(ctx, process.execPath, ['app.cjs'], { cwd: alone })).stdout;
}

/**
 * Writes the row's index.html: an empty page with the result element the job fills in, loading the
 * bundle `src` (a module script, or with `classic` a deferred classic script).
 * @param {Ctx} ctx
 * @param {string} src
 * @param {{ classic?: boolean }} [o]
 */
function writePage(ctx, src, { classic = false } = {}) {
  const script = classic ? `<script defer src="${src}"></script>` : `<script type="module" src="${src}"></script>`;
  writeFileSync(
    join(ctx.dir, 'index.html'),
    // The empty icon avoids a favicon request, which would count as a failed request.
    `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>code-session-gate packaging: ${ctx.name}</title>` +
      `<link rel="icon" href="data:,"></head>\n<body><pre id="result"></pre>${script}</body>\n</html>\n`,
  );
}

/**
 * Serves `dir` while `f` runs.
 * @template T
 * @param {string} dir
 * @param {(url: string) => Promise<T>} f
 */
async function withServer(dir, f) {
  const server = await serveStatic(dir);
  try {
    return await f(server.url);
  } finally {
    await server.close();
  }
}

/**
 * Loads the page in Chromium and asserts its result; console errors, uncaught exceptions and failed
 * requests fail the row too. `noWasm`: an /inline bundle must not fetch any .wasm.
 * @param {string} url
 * @param {{ init?: boolean, noWasm?: boolean, where?: string }} [o]
 */
async function pageJob(url, { init = false, noWasm = false, where } = {}) {
  const page = await loadPage(url);
  const wasm = page.requested.filter((u) => /\.wasm(\?|$)/.test(u));
  const all = [
    ...page.problems,
    ...(noWasm && wasm.length ? [`the /inline bundle requested ${wasm.join(', ')}`] : []),
    ...problems(page.result, { init }),
  ];
  if (all.length) throw new Fail(`${where ? `${where}: ` : ''}${all.join('; ')}`);
  return wasm;
}

/**
 * Checks a bundler's output folder: every file matches one of `allowed` (so the bundler emitted the
 * two modules and nothing else of the package: a `new URL()` it cannot resolve statically makes it
 * copy the whole package folder), exactly two are .wasm (the core module, and the sandbox module the
 * page fetches when it calls `initSandbox()`). Returns a note with the sizes.
 * @param {string} dir
 * @param {RegExp[]} allowed paths relative to `dir`, `/`-separated
 */
function expectOutput(dir, allowed) {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
  const extra = files.filter((f) => !allowed.some((re) => re.test(f)));
  const wasm = files.filter((f) => f.endsWith('.wasm'));
  if (extra.length) {
    const listed = extra.length > 5 ? `${extra.slice(0, 5).join(', ')} and ${extra.length - 5} more` : extra.join(', ');
    throw new Fail(`the build copied package files besides the two modules (a new URL() it could not resolve to one file?): ${listed}`);
  }
  if (wasm.length !== 2) throw new Fail(`the build emitted ${wasm.length} .wasm files, not 2 (${files.join(', ')})`);
  return files.map((f) => `${f} ${kb(join(dir, f))}`).join(', ');
}

/** @param {string} file */
const kb = (file) => `${Math.round(statSync(file).size / 1024)} KB`;

/**
 * Asserts the result of fixtures/esbuild-default/: a call before `init()` refused with "not_initialized",
 * then `init()` (twice: a failed one may be retried) and `recover()` rejecting, not throwing, with the
 * typed "wasm_not_found" error that says why the .wasm cannot be located and names the fix for esbuild
 * (the /inline entry, or the module passed to init), not Vite's.
 * @param {any} r
 * @param {string} [where]
 */
function expectTypedRejection(r, where) {
  if (!r || typeof r !== 'object') throw new Fail(`${where ? `${where}: ` : ''}result is not an object: ${JSON.stringify(r)}`);
  const out = [];
  if (r.before !== 'not_initialized') out.push(`a call before init() gave ${JSON.stringify(r.before)}, not code "not_initialized"`);
  for (const what of ['init', 'again', 'recover']) {
    const t = r[what] ?? {};
    const call = what === 'recover' ? 'recover()' : what === 'again' ? 'a second init()' : 'init()';
    if (t.resolved) out.push(`${call} resolved`);
    else if (t.name !== 'CodeSessionGateError' || t.code !== 'wasm_not_found' || t.guard !== true) {
      out.push(`${call} rejected with name=${JSON.stringify(t.name)} code=${JSON.stringify(t.code)}: ${JSON.stringify(t.message)}, not a CodeSessionGateError "wasm_not_found"`);
    } else {
      if (t.sync) out.push(`${call} threw synchronously instead of returning a rejected promise`);
      if (!/import\.meta\.url is not a URL/.test(t.message)) out.push(`${call}'s message does not say import.meta.url is not a URL: ${JSON.stringify(t.message)}`);
      if (!/import "code-session-gate\/inline"/.test(t.message) || !/init\(\{ module_or_path \}\)/.test(t.message)) {
        out.push(`${call}'s message does not name code-session-gate/inline and init({ module_or_path }): ${JSON.stringify(t.message)}`);
      }
      if (/optimizeDeps/.test(t.message)) out.push(`${call}'s message gives Vite's optimizeDeps advice: ${JSON.stringify(t.message)}`);
    }
  }
  if (out.length) throw new Fail(`${where ? `${where}: ` : ''}${out.join('; ')}`);
}

/**
 * A Node-resolved TypeScript row: strict tsc on fixtures/_shared/node-consumer.ts with the fixture's
 * tsconfig, then the emitted JavaScript run with node.
 * @param {string} name
 * @param {'module' | 'commonjs'} type
 * @returns {Row}
 */
const tsNode = (name, type) => ({
  name,
  type,
  shared: ['node-consumer.ts'],
  async run(ctx) {
    await sh(ctx, bin('root', 'tsc'), ['-p', 'tsconfig.json']);
    await nodeJob(ctx, ['dist/node-consumer.js']);
  },
});

/** The README's recipe for Vite 6: serve the package as it is, and a build target with top-level await. */
const VITE6_RECIPE = { optimizeDeps: { exclude: ['code-session-gate'] }, build: { target: 'es2022' } };

/**
 * Runs `f` on a Vite dev server (`vite`: 8, `vite6` or `vite5`) of the row's folder with `config` (no config file).
 * @template T
 * @param {Ctx} ctx
 * @param {'vite' | 'vite6' | 'vite5'} vite
 * @param {object} config
 * @param {(url: string) => Promise<T>} f
 */
async function viteDev(ctx, vite, config, f) {
  const { createServer } = await import(vite);
  const port = await freePort();
  const server = await createServer({
    root: ctx.dir,
    configFile: false,
    clearScreen: false,
    logLevel: 'warn',
    ...config,
    server: { host: '127.0.0.1', port, strictPort: true },
  });
  await server.listen();
  try {
    return await f(`http://127.0.0.1:${port}/`);
  } finally {
    await server.close();
  }
}

/** The README's recipe for Vite 5's dev server: serve the package as it is (no config for its build). */
const VITE5_RECIPE = { optimizeDeps: { exclude: ['code-session-gate'] } };

/** @type {Promise<{ dist: string, main: string, wasm: string[], files: string[] }> | undefined} */
let wranglerBuild;
/**
 * `wrangler deploy --dry-run` of the wrangler-dry-run fixture, once per run: its row asserts the bundle,
 * the workerd row serves it.
 * @param {Ctx} ctx
 */
function wranglerBundle(ctx) {
  wranglerBuild ??= (async () => {
    const dir = await ctx.rowDir('wrangler-dry-run');
    await must(bin('root', 'wrangler'), ['deploy', '--dry-run', '--outdir', 'dist'], {
      cwd: dir,
      env: wranglerEnv(dir),
      log: ctx.log,
      timeoutMs: 180_000,
    });
    const dist = join(dir, 'dist');
    const files = readdirSync(dist).sort();
    const main = files.find((f) => f === 'worker.js') ?? files.find((f) => /\.m?js$/.test(f));
    if (!main) throw new Fail(`wrangler wrote no JavaScript module to dist/ (${files.join(', ')})`);
    return { dist, main, wasm: files.filter((f) => f.endsWith('.wasm')), files };
  })();
  return wranglerBuild;
}


/**
 * Deno on a fixture's module: reads limited to the row's folder, no network, no prompt.
 * @param {Ctx} ctx
 * @param {string} file
 */
async function denoJob(ctx, file) {
  const env = { ...process.env, DENO_DIR: join(ctx.dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
  const r = await sh(ctx, bin('root', 'deno'), ['run', `--allow-read=${ctx.dir}`, '--deny-net', '--no-prompt', file], { env });
  expectJob(lastJson(r.stdout), { init: true });
}

/** @type {Row[]} */
export const ROWS = [
  { name: 'node-esm', shared: ['job.mjs'], run: (ctx) => nodeJob(ctx, ['index.mjs']) },
  { name: 'node-cjs', shared: ['job.mjs'], run: (ctx) => nodeJob(ctx, ['index.cjs']) },
  {
    name: 'node-cjs-no-require-esm',
    fixture: 'node-cjs',
    shared: ['job.mjs'],
    run: (ctx) => nodeJob(ctx, ['--no-experimental-require-module', 'index.cjs']),
  },

  tsNode('ts-node16-esm', 'module'),
  tsNode('ts-node16-cjs', 'commonjs'),
  tsNode('ts-nodenext-esm', 'module'),
  tsNode('ts-nodenext-cjs', 'commonjs'),
  // TypeScript 5's classic resolution (`node10`): no `exports` read, so the top-level `types` must be the
  // declarations of what `main` (node.cjs) loads.
  {
    name: 'ts-node10',
    type: 'commonjs',
    shared: ['node-consumer.ts'],
    async run(ctx) {
      await sh(ctx, process.execPath, [TSC5, '-p', 'tsconfig.json']);
      await nodeJob(ctx, ['dist/node-consumer.js']);
    },
  },
  {
    name: 'ts-bundler',
    run: async (ctx) => void (await sh(ctx, bin('root', 'tsc'), ['-p', 'tsconfig.json'])),
  },
  {
    name: 'ts-workerd',
    run: async (ctx) => void (await sh(ctx, bin('root', 'tsc'), ['-p', 'tsconfig.json'])),
  },
  {
    name: 'ts-no-dom',
    shared: ['node-consumer.ts'],
    async run(ctx) {
      await sh(ctx, bin('root', 'tsc'), ['-p', 'tsconfig.json']);
      await nodeJob(ctx, ['dist/node-consumer.js']);
    },
  },

  {
    name: 'esbuild-browser',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'esbuild'), ['index.js', '--bundle', '--format=esm', '--platform=browser', '--outfile=dist/app.js', '--log-level=warning']);
      writePage(ctx, 'dist/app.js');
      await withServer(ctx.dir, (url) => pageJob(url, { noWasm: true }));
      return `dist/app.js ${kb(join(ctx.dir, 'dist/app.js'))}`;
    },
  },
  {
    name: 'esbuild-node',
    shared: ['job.mjs'],
    async run(ctx) {
      const esbuild = bin('local', 'esbuild');
      for (const [format, out] of [['esm', 'dist/app.mjs'], ['cjs', 'dist/app.cjs']]) {
        await sh(ctx, esbuild, ['index.mjs', '--bundle', '--platform=node', `--format=${format}`, `--outfile=${out}`, '--log-level=warning']);
        await runAlone(ctx, out, format);
      }
    },
  },
  // esbuild without the recipe: the default import, in formats that leave import.meta empty. init()
  // must reject with the typed error naming code-session-gate/inline, not a TypeError "Invalid URL".
  {
    name: 'esbuild-browser-unconfigured',
    fixture: 'esbuild-default',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'esbuild'), ['index.js', '--bundle', '--format=iife', '--platform=browser', '--outfile=dist/app.js', '--log-level=warning']);
      writePage(ctx, 'dist/app.js', { classic: true });
      const page = await withServer(ctx.dir, (url) => loadPage(url));
      if (page.problems.length) throw new Fail(page.problems.join('; '));
      expectTypedRejection(page.result);
      return 'iife: init() and recover() rejected with wasm_not_found, naming code-session-gate/inline';
    },
  },
  {
    name: 'esbuild-node-unconfigured',
    fixture: 'esbuild-default',
    shared: ['job.mjs'],
    async run(ctx) {
      // --platform=neutral: the default import without the node condition (browser.js), as a CommonJS
      // bundle run alone by node. (With --platform=node the node condition picks node.js instead.)
      const stdout = await bundleAndRunAlone(ctx, ['--platform=neutral', '--format=cjs']);
      expectTypedRejection(lastJson(stdout), 'cjs');
      return 'cjs: init() and recover() rejected with wasm_not_found, naming code-session-gate/inline';
    },
  },
  // esbuild --platform=node with the default import: node-bundled.js (the `module` condition), which
  // carries the modules for a bundle with no .wasm beside it, in both formats.
  {
    name: 'esbuild-node-default',
    shared: ['job.mjs'],
    async run(ctx) {
      const esbuild = bin('local', 'esbuild');
      for (const [format, out] of [['esm', 'dist/app.mjs'], ['cjs', 'dist/app.cjs']]) {
        await sh(ctx, esbuild, ['index.js', '--bundle', '--platform=node', `--format=${format}`, `--outfile=${out}`, '--log-level=warning']);
        await runAlone(ctx, out, format);
      }
      return 'the default import bundled alone, esm and cjs';
    },
  },
  {
    name: 'tsup',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'tsup'), []);
      const out = readdirSync(join(ctx.dir, 'dist')).find((f) => /^index\.m?js$/.test(f));
      if (!out) throw new Fail(`tsup wrote no dist/index.js (${readdirSync(join(ctx.dir, 'dist')).join(', ')})`);
      await runAlone(ctx, `dist/${out}`);
    },
  },
  {
    name: 'vite-dev',
    fixture: 'vite',
    shared: ['job.mjs'],
    run: (ctx) => viteDev(ctx, 'vite', {}, (url) => pageJob(url, { init: true })).then(() => undefined),
  },
  {
    name: 'vite-build',
    fixture: 'vite',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'vite'), ['build', '--logLevel', 'warn']);
      const dist = join(ctx.dir, 'dist');
      const note = expectOutput(dist, [/^index\.html$/, /^assets\/index-[\w-]+\.js$/, /^assets\/code_session_(gate|sandbox)_bg-[\w-]+\.wasm$/]);
      await withServer(dist, (url) => pageJob(url, { init: true }));
      return note;
    },
  },
  // Vite 6 (before rolldown): the dev server pre-bundles the package away from its .wasm. Without the
  // README's recipe, init() must fail with the typed error that names the fix; with it (and the build
  // target the README gives for top-level await), the dev server and the build work.
  {
    name: 'vite6-dev-unconfigured',
    fixture: 'vite',
    shared: ['job.mjs'],
    async run(ctx) {
      const fatal = await viteDev(ctx, 'vite6', {}, (url) => loadPage(url).then((page) => page.result?.fatal));
      if (typeof fatal !== 'string' || !/^CodeSessionGateError: .*did not return the WebAssembly module: .*optimizeDeps: \{ exclude: \["code-session-gate"\] \}/.test(fatal)) {
        throw new Fail(`expected init() to reject with the not_wasm error naming the fix, got ${JSON.stringify(fatal)}`);
      }
      return 'init() rejected with not_wasm, naming optimizeDeps.exclude';
    },
  },
  {
    name: 'vite6-dev',
    fixture: 'vite',
    shared: ['job.mjs'],
    run: (ctx) => viteDev(ctx, 'vite6', VITE6_RECIPE, (url) => pageJob(url, { init: true })).then(() => undefined),
  },
  {
    name: 'vite6-build',
    fixture: 'vite',
    shared: ['job.mjs'],
    async run(ctx) {
      const { build } = await import('vite6');
      await build({ root: ctx.dir, configFile: false, logLevel: 'warn', ...VITE6_RECIPE });
      const dist = join(ctx.dir, 'dist');
      const note = expectOutput(dist, [/^index\.html$/, /^assets\/index-[\w-]+\.js$/, /^assets\/code_session_(gate|sandbox)_bg-[\w-]+\.wasm$/]);
      await withServer(dist, (url) => pageJob(url, { init: true }));
      return note;
    },
  },
  {
    name: 'webpack',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'webpack'), ['--mode', 'production']);
      writePage(ctx, 'dist/main.js', { classic: true });
      const note = expectOutput(join(ctx.dir, 'dist'), [/^main\.js$/, /^main\.js\.LICENSE\.txt$/, /^[0-9a-f]+\.wasm$/]);
      await withServer(ctx.dir, (url) => pageJob(url, { init: true }));
      return note;
    },
  },

  // Vite 5: the dev server with the README's optimizeDeps line; the build with no configuration at all
  // (the README's example calls init() inside an async function: no top-level await, no build.target).
  {
    name: 'vite5-dev',
    fixture: 'vite',
    shared: ['job.mjs'],
    run: (ctx) => viteDev(ctx, 'vite5', VITE5_RECIPE, (url) => pageJob(url, { init: true })).then(() => undefined),
  },
  {
    name: 'vite5-dev-unconfigured',
    fixture: 'vite',
    shared: ['job.mjs'],
    async run(ctx) {
      const fatal = await viteDev(ctx, 'vite5', {}, (url) => loadPage(url).then((page) => /** @type {any} */ (page.result)?.fatal));
      if (typeof fatal !== 'string' || !/^CodeSessionGateError: .*did not return the WebAssembly module: .*Vite \(before 8\) pre-bundled .*optimizeDeps: \{ exclude: \["code-session-gate"\] \}/.test(fatal)) {
        throw new Fail(`expected init() to reject with the not_wasm error naming the fix, got ${JSON.stringify(fatal)}`);
      }
      return 'init() rejected with not_wasm, naming optimizeDeps.exclude';
    },
  },
  {
    name: 'vite5-build',
    fixture: 'vite',
    shared: ['job.mjs'],
    async run(ctx) {
      const { build } = await import('vite5');
      await build({ root: ctx.dir, configFile: false, logLevel: 'warn' });
      const dist = join(ctx.dir, 'dist');
      const note = expectOutput(dist, [/^index\.html$/, /^assets\/index-[\w-]+\.js$/, /^assets\/code_session_(gate|sandbox)_bg-[\w-]+\.wasm$/]);
      await withServer(dist, (url) => pageJob(url, { init: true }));
      return note;
    },
  },
  // Parcel 2 with its defaults (no packageExports): the package's `browser` field, and the two .wasm
  // emitted from the browser entry's new URL(…, import.meta.url).
  {
    name: 'parcel',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'parcel'), ['build', 'index.html', '--no-autoinstall', '--no-source-maps', '--dist-dir', 'dist', '--cache-dir', '.parcel-cache'], {
        env: { ...process.env, NO_COLOR: '1', PARCEL_WORKERS: '1' },
      });
      const dist = join(ctx.dir, 'dist');
      const note = expectOutput(dist, [/^index\.html$/, /^[\w-]+\.[0-9a-f]+\.js$/, /^code_session_(gate|sandbox)_bg\.[0-9a-f]+\.wasm$/]);
      await withServer(dist, (url) => pageJob(url, { init: true }));
      return note;
    },
  },
  // Rollup 4 + @rollup/plugin-node-resolve, the README's recipe: the /inline entry (no asset to emit).
  {
    name: 'rollup',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'rollup'), ['-c', '--silent']);
      writePage(ctx, 'dist/app.js');
      await withServer(ctx.dir, (url) => pageJob(url, { noWasm: true }));
      return `dist/app.js ${kb(join(ctx.dir, 'dist/app.js'))}`;
    },
  },
  {
    name: 'rollup-unconfigured',
    fixture: 'rollup-default',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'rollup'), ['-c', '--silent']);
      writePage(ctx, 'dist/app.js');
      const page = await withServer(ctx.dir, (url) => loadPage(url));
      const fatal = /** @type {any} */ (page.result)?.fatal;
      if (typeof fatal !== 'string' || !/^CodeSessionGateError: .*code_session_gate_bg\.wasm: HTTP 404.*served without the \.wasm files beside it.*import "code-session-gate\/inline"/.test(fatal) || /optimizeDeps/.test(fatal)) {
        throw new Fail(`expected init() to reject with wasm_not_found naming the fixes for a bundle without its .wasm (not Vite's), got ${JSON.stringify(fatal)}`);
      }
      return 'init() rejected with wasm_not_found, naming /inline and the copy, not optimizeDeps';
    },
  },
  // No bundler: the installed package served as it is, an import map naming its browser entry.
  {
    name: 'no-bundler',
    shared: ['job.mjs'],
    async run(ctx) {
      const wasm = await withServer(ctx.dir, (url) => pageJob(url, { init: true }));
      return `fetched ${wasm.map((u) => u.replace(/^.*\//, '')).join(', ')}`;
    },
  },

  ...FRAMEWORK_ROWS,

  {
    name: 'wrangler-dry-run',
    shared: ['job.mjs'],
    async run(ctx) {
      const { dist, main, wasm, files } = await wranglerBundle(ctx);
      if (wasm.length !== 2) throw new Fail(`expected the two modules beside the bundle, dist/ has ${files.join(', ')}`);
      const bundle = readFileSync(join(dist, main), 'utf8');
      for (const file of wasm) {
        const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        if (!new RegExp(`["']\\./${escaped}["']`).test(bundle)) {
          throw new Fail(`${main} does not import ./${file} as a module`);
        }
      }
      return `${main} + ${wasm.join(' + ')}`;
    },
  },
  {
    name: 'workerd',
    install: false,
    async run(ctx) {
      const { dist, main, wasm } = await wranglerBundle(ctx);
      const port = await freePort();
      const config = workerdConfig(ctx, { dist, main, wasm, port });
      expectJob(await fetchFromWorkerd(ctx, config, port));
    },
  },

  // Vitest inside workerd (@cloudflare/vitest-pool-workers): with the README's module rule in the
  // miniflare options, and with a wrangler configuration instead.
  {
    name: 'vitest-workerd',
    shared: ['job.mjs'],
    async run(ctx) {
      for (const config of ['vitest.config.mjs', 'vitest.wrangler.config.mjs']) {
        const r = await sh(ctx, bin('local', 'vitest'), ['run', '--config', config], { env: wranglerEnv(ctx.dir), timeoutMs: 120_000 });
        const result = lastJson(r.stdout);
        if (result.runtime !== 'Cloudflare-Workers') throw new Fail(`${config}: the test ran in ${JSON.stringify(result.runtime)}, not workerd`);
        expectJob(result, { where: config });
      }
      return 'in workerd: miniflare options + CompiledWasm rule; wrangler.toml';
    },
  },

  { name: 'deno-npm', shared: ['job.mjs'], run: (ctx) => denoJob(ctx, 'main.mjs') },
  { name: 'deno-relative', shared: ['job.mjs'], run: (ctx) => denoJob(ctx, 'main.mjs') },

  // Jest 30 with `testEnvironment: 'jsdom'`: a CommonJS test requiring the package (the `node` + `require`
  // branch) under a global scope without TextEncoder.
  {
    name: 'jest-jsdom',
    type: 'commonjs',
    shared: ['job.mjs'],
    async run(ctx) {
      await sh(ctx, bin('local', 'esbuild'), ['job.mjs', '--format=cjs', '--outfile=job.cjs', '--log-level=warning']);
      await sh(ctx, bin('local', 'jest'), ['--config', 'jest.config.cjs', '--ci'], { env: { ...process.env, NO_COLOR: '1' } });
      const result = JSON.parse(readFileSync(join(ctx.dir, 'result.json'), 'utf8'));
      if (result.environment !== 'jsdom') throw new Fail(`the test ran under ${result.environment}, not jsdom`);
      expectJob(result);
    },
  },
  {
    name: 'bun-runtime',
    shared: ['job.mjs'],
    async run(ctx) {
      const r = await sh(ctx, bunBinary(), ['--no-install', 'index.mjs'], { env: { ...process.env, DO_NOT_TRACK: '1' } });
      expectJob(lastJson(r.stdout));
    },
  },
  {
    name: 'bun-build',
    shared: ['job.mjs'],
    async run(ctx) {
      const env = { ...process.env, DO_NOT_TRACK: '1' };
      await sh(ctx, bunBinary(), ['build', 'index.js', '--target=browser', '--outdir=dist'], { env });
      writePage(ctx, 'dist/index.js');
      await withServer(ctx.dir, (url) => pageJob(url, { noWasm: true, where: 'browser' }));
      await sh(ctx, bunBinary(), ['build', 'index.js', '--target=node', '--outfile=dist-node/app.mjs'], { env });
      await runAlone(ctx, 'dist-node/app.mjs', 'node');
      return `dist/index.js ${kb(join(ctx.dir, 'dist/index.js'))}`;
    },
  },

  // The tarball itself: its packed size under the ceiling, and no file that no entry reaches.
  {
    name: 'tarball',
    install: false,
    run: async (ctx) => tarballCheck(ctx, PKG_DIR, PACKED_CEILING),
  },
  // The drift command's own package: its bundle reads the two vector files beside itself.
  {
    name: 'tarball-check-sdk',
    install: false,
    run: async (ctx) => tarballCheck(ctx, CHECK_SDK_DIR, CHECK_SDK_PACKED_CEILING, ['conformance-vectors.json', 'conformance-vectors-own.json', 'TRACE.md']),
  },
  {
    name: 'publint',
    install: false,
    async run(ctx) {
      // --strict: warnings fail too. Suggestions are reported as the row's note. Both packages.
      const notes = [];
      for (const target of [ctx.tarball, CHECK_SDK_DIR]) {
        const r = await run(bin('local', 'publint'), ['run', target, '--strict'], { cwd: ctx.dir, log: ctx.log, env: { ...process.env, NO_COLOR: '1' } });
        const text = `${r.stdout}\n${r.stderr}`;
        const which = target === CHECK_SDK_DIR ? 'code-session-gate-check-sdk' : 'code-session-gate';
        if (r.code !== 0) throw new Fail(`${which}: ${publintMessages(text, /^(Errors|Warnings):/) || gist(text)}`);
        const suggestions = publintMessages(text, /^Suggestions:/);
        if (suggestions) notes.push(`${which} suggestions: ${suggestions}`);
      }
      return notes.join('; ') || undefined;
    },
  },
  {
    name: 'attw',
    install: false,
    async run(ctx) {
      // --no-definitely-typed: no @types lookup on the registry; the package ships its own types.
      const r = await run(bin('local', 'attw'), [ctx.tarball, '--format', 'json', '--no-definitely-typed'], { cwd: ctx.dir, log: ctx.log });
      const report = attwProblems(r.stdout);
      if (report === null) throw new Fail(`attw printed no report (exit ${r.code}): ${gist(`${r.stderr}\n${r.stdout}`)}`);
      if (report.length || r.code !== 0) throw new Fail(report.join('; ') || `attw exited ${r.code}`);
    },
  },
];

/**
 * The runtime package's packed size ceiling in bytes (`npm pack`'s size), a ratchet at the last tarball
 * plus a little room. The tarball holds each module twice and cannot hold it less: as the `.wasm` (what
 * Vite, webpack, Parcel, wrangler and Node load) and as the base64 text of `/inline` (what esbuild, tsup,
 * `bun build`, Rollup and edge runtimes need without any asset); the ESM and CommonJS inline entries share
 * the one base64 copy. History: 793.4 kB; issue 21's forwarding path (+67 KB of .wasm, each held twice)
 * 864.1 kB; issue 30's run report 868.6 kB; issue 33 moved check-sdk, its bundle and the vectors it replays
 * into their own package: 806.6 kB; the Bun, bundled-for-Node and unwasm entries (bun.js, node-bundled.js,
 * carried.js, unwasm.js, compiled.js) 809.0 kB; issue 31's boundary on wasm-bindgen (the two modules' glue,
 * +57 KB unpacked) with the CommonJS form one .cjs per module instead of three bundles each carrying the
 * whole API: 794.9 kB; api.js one bundle of the API and the glue (one file instead of nine): 782.8 kB;
 * issue 32's merge in step and list diffs (+9.3 KB of core .wasm, held twice): 792.3 kB; issue 31's
 * declarations written from the Rust types (answers.d.ts, now types.d.ts, and the unions in ops.d.ts, each also as .d.cts)
 * and the key policy: 795.4 kB; issue 32's recalled echoes and refs sent as written (+7 KB of core .wasm,
 * +0.8 KB of sandbox .wasm, each held twice): 803.6 kB; issue 32's results read by the scanner (+4.0 KB of
 * core .wasm, held twice): 808.1 kB; issue 31's declarations of every shape (types.d.ts, +12 KB
 * unpacked with its .d.cts) and issue 32's options read in one pass (+2.1 KB of core .wasm, held twice):
 * 811.6 kB; issue 32's wire turn written by hand and the operations dispatched through tables (the
 * sandbox .wasm +0.3 KB, the JS glue's constant maps): 812.9 kB; issue 32's shared extra keys, the object
 * path's memo and the word-at-a-time text checks (core .wasm +3.4 KB, sandbox +1.2 KB, each held twice):
 * 817.2 kB; issue 32's Gate.forwardEventBatch (core .wasm +3.2 KB, held twice, and its declarations):
 * 822.3 kB; issue 48's second pass (core .wasm +4.0 KB, within that issue's +2 %, held twice; each
 * type's declaration derived from the struct that reads or writes it): 826.5 kB; issue 49's handed-out
 * objects recognised (handed.js in each bundle) and forwardEventBatch's refused calls with their args:
 * 827.8 kB; issue 49's fixed-cost steps (core .wasm -3.2 KB): 825.0 kB; issue 48's fourth pass, the exec
 * wire's typed readers (sandbox .wasm +2.2 KB gzip, within that issue's +2 %, held twice): 830.0 kB;
 * with issue 49's arguments' buffer (core .wasm -0.4 KB gzip, sandbox -0.2 KB, each held twice) and
 * issue 48's JavaScript pass: 825.8 kB; issue 49's `--merge-similar-functions` (core .wasm -0.6 KB gzip,
 * held twice): 824.1 kB; issue 49's third session (core .wasm -0.2 KB raw, -0.07 KB gzip): 824.0 kB
 * (824,111 -> 823,995 bytes packed on one machine); issue 49's one hash-table code for every map (core
 * .wasm -17.7 KB raw, -5.8 KB gzip, held twice): 811.3 kB.
 */
const PACKED_CEILING = 811_800;
/** The check-sdk package's ceiling: its bundle and the two vector files (62.2 kB packed). */
const CHECK_SDK_PACKED_CEILING = 64_000;

/**
 * A built package folder's tarball (`npm pack --dry-run`): its size against `ceiling`, and every file in
 * it reached from the manifest (exports, main, module, browser, types, bin) through the relative
 * imports, requires and `new URL('./…')` of the files reached (declaration files through theirs),
 * besides the manifest, README, LICENSE and the files `readBeside` names.
 * @param {Ctx} ctx
 * @param {string} pkgDir
 * @param {number} ceiling
 * @param {string[]} [readBeside] files the package reads by name beside itself
 */
async function tarballCheck(ctx, pkgDir, ceiling, readBeside = []) {
  const r = await sh(ctx, 'npm', ['pack', pkgDir, '--dry-run', '--json', '--ignore-scripts']);
  const [packed] = JSON.parse(r.stdout);
  /** @type {string[]} */
  const files = packed.files.map((/** @type {{ path: string }} */ f) => f.path);
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  /** @type {string[]} */
  const roots = ['package.json', 'README.md', 'LICENSE', ...readBeside];
  const collect = (/** @type {unknown} */ v) => {
    if (typeof v === 'string') roots.push(v.replace(/^\.\//, ''));
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  collect([manifest.exports, manifest.main, manifest.module, manifest.browser, manifest.types, manifest.bin]);
  const reached = new Set();
  const queue = [...roots];
  while (queue.length) {
    const f = /** @type {string} */ (queue.pop());
    if (reached.has(f) || !files.includes(f)) continue;
    reached.add(f);
    if (!/\.(c?js|d\.c?ts)$/.test(f)) continue;
    const types = /\.d\.c?ts$/.test(f);
    const text = readFileSync(join(pkgDir, f), 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+|new URL\(\s*)(['"])\.\/([^'"]+)\1/g)) {
      const ref = m[2];
      queue.push(types ? ref.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts') : ref);
    }
  }
  const unreached = files.filter((f) => !reached.has(f));
  const problems = [];
  if (unreached.length) problems.push(`${manifest.name}: files no entry reaches: ${unreached.join(', ')}`);
  if (packed.size > ceiling) problems.push(`${manifest.name}: packed ${packed.size} bytes, over the ceiling of ${ceiling}`);
  if (problems.length) throw new Fail(problems.join('; '));
  return `${manifest.name}: ${files.length} files, ${(packed.size / 1000).toFixed(1)} kB packed (ceiling ${ceiling / 1000} kB), ${(packed.unpackedSize / 1000).toFixed(1)} kB unpacked`;
}

/**
 * The numbered messages under publint's headings matching `heading`, one line each, joined.
 * @param {string} text
 * @param {RegExp} heading
 */
function publintMessages(text, heading) {
  const out = [];
  let inside = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (/^[A-Z][a-z]+:$/.test(line)) inside = heading.test(line);
    else if (inside && /^\d+\.\s/.test(line)) out.push(line.replace(/^\d+\.\s*/, ''));
  }
  return out.join(' | ');
}

/**
 * attw's problems as short sentences: `kind` at `entrypoint` under `resolution`. `null` when stdout
 * is not attw's JSON report.
 * @param {string} stdout
 * @returns {string[] | null}
 */
function attwProblems(stdout) {
  let report;
  try {
    report = JSON.parse(stdout);
  } catch {
    return null;
  }
  const found = report?.analysis?.problems;
  if (!Array.isArray(found)) return null;
  return found.map((p) => {
    const where = [p.entrypoint, p.resolutionKind].filter(Boolean).join(' under ');
    return `${p.kind}${where ? ` (${where})` : ''}`;
  });
}
