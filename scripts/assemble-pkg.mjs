#!/usr/bin/env node
// Assembles the npm package from the wasm-bindgen output (already passed through wasm-opt) and the
// hand-written files of src/js/:
//
//   node scripts/assemble-pkg.mjs <wasm-bindgen out dir> <package dir to create>
//
// - the glue is copied with one addition, `__csgReset()` (see 1b), and must have the exports
//   src/js/api.js uses;
// - the package.json template gets the crate's version from Cargo.toml;
// - `files` of the template must list exactly the files produced (checked both ways).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const NAME = 'code_session_gate';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [glueDir, outDir] = process.argv.slice(2).map((p) => resolve(p));
if (!glueDir || !outDir) {
  console.error('usage: assemble-pkg.mjs <wasm-bindgen out dir> <package dir>');
  process.exit(2);
}
const fail = (msg) => {
  console.error(`assemble-pkg: ${msg}`);
  process.exit(1);
};

mkdirSync(outDir, { recursive: true });

// 1. The wasm-bindgen output: the glue and the module. Its declarations stay out: the glue is internal
// (api.js wraps it), and they name DOM types that a host without the DOM lib cannot compile; the
// package's own .d.ts (src/js/) describe everything a host imports, the .wasm subpath included.
for (const f of [`${NAME}.js`, `${NAME}_bg.wasm`]) {
  if (!existsSync(join(glueDir, f))) fail(`missing ${f} in ${glueDir}`);
  copyFileSync(join(glueDir, f), join(outDir, f));
}

if (existsSync(join(glueDir, 'snippets'))) fail('the glue has inline JavaScript (snippets/), which the package does not ship');

// 1b. Recovery after a trap (api.js `recover`): the glue keeps its instance in module variables and
// would never instantiate again. `__csgReset()` forgets the instance and the views of its memory, and
// the finalizer of `RawGate` objects is bound to the instance they were made in, so that an object of
// the trapped instance collected later frees nothing in the new one. The exact generated lines are
// required (wasm-bindgen is pinned): any other glue fails the build here.
{
  const file = join(outDir, `${NAME}.js`);
  let text = readFileSync(file, 'utf8');
  const registry =
    "const RawGateFinalization = (typeof FinalizationRegistry === 'undefined')\n" +
    '    ? { register: () => {}, unregister: () => {} }\n' +
    '    : new FinalizationRegistry(ptr => wasm.__wbg_rawgate_free(ptr, 1));';
  if (!text.includes(registry)) fail('the glue does not create its RawGate finalizer as expected (see 1b)');
  text = text.replace(
    registry,
    [
      '// code-session-gate: the finalizer frees only in the instance the object was made in (__csgReset).',
      'let __csgInstance = 0;',
      'function __csgRegistry() {',
      "    if (typeof FinalizationRegistry === 'undefined') return { register: () => {}, unregister: () => {} };",
      '    const made = __csgInstance;',
      '    return new FinalizationRegistry(ptr => { if (made === __csgInstance) wasm.__wbg_rawgate_free(ptr, 1); });',
      '}',
      'let RawGateFinalization = __csgRegistry();',
    ].join('\n'),
  );
  const caches = [...text.matchAll(/^let (cached\w+Memory0) = null;$/gm)].map((m) => m[1]);
  if (caches.length === 0 || !/^let wasmModule, wasmInstance, wasm;$/m.test(text) || !/^let __wbg_init_promise;$/m.test(text)) {
    fail('the glue does not keep its instance where __csgReset expects it (see 1b)');
  }
  text += [
    '',
    '/** code-session-gate: forgets the instance (after a trap) so that initSync / init instantiate afresh. */',
    'export function __csgReset() {',
    '    __csgInstance += 1;',
    '    RawGateFinalization = __csgRegistry();',
    '    wasm = undefined;',
    '    wasmModule = undefined;',
    '    wasmInstance = undefined;',
    '    __wbg_init_promise = undefined;',
    ...caches.map((c) => `    ${c} = null;`),
    '}',
    '',
  ].join('\n');
  writeFileSync(file, text);
}

// 2. The glue must export exactly what src/js/api.js imports.
const glue = await import(pathToFileURL(join(outDir, `${NAME}.js`)).href);
for (const n of ['default', 'initSync', 'RawGate', 'callStatic', 'constants', '__csgReset']) {
  if (typeof glue[n] !== 'function') fail(`the wasm-bindgen glue has no ${n} export`);
}

// 3. The hand-written entries and their types, the package's README and the LICENSE.
const src = join(root, 'src', 'js');
for (const f of readdirSync(src)) {
  if (f === 'package.json') continue;
  if (f.endsWith('.js') || f.endsWith('.d.ts') || f === 'README.md') copyFileSync(join(src, f), join(outDir, f));
}
copyFileSync(join(root, 'LICENSE'), join(outDir, 'LICENSE'));

// 3b. The inline entry's module text: the optimised .wasm as base64, in a module of its own so that
// only `code-session-gate/inline` pulls it in.
{
  const wasm = readFileSync(join(outDir, `${NAME}_bg.wasm`));
  writeFileSync(
    join(outDir, `${NAME}_bg.base64.js`),
    `// ${NAME}_bg.wasm (${wasm.length} bytes) as base64, for code-session-gate/inline. Generated.\n` +
      `export default ${JSON.stringify(wasm.toString('base64'))};\n`,
  );
}

// 3c. The CommonJS entries (the `require` conditions): each ESM entry and everything it imports,
// bundled into one CommonJS file by esbuild (pinned in the root package.json). node.cjs comes from
// src/js/cjs/node.js (it finds the .wasm through `__dirname`), slim.cjs and inline.cjs from their ESM
// entries as they are. Their types: the ESM declarations copied as .d.cts with their relative imports
// pointed at the .cjs names, so that a CommonJS TypeScript project reads CommonJS types (no
// ESM-from-require error, TS1479).
{
  const { build } = await import('esbuild');
  const bundle = (name, options) =>
    build({
      outfile: join(outDir, `${name}.cjs`),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node18',
      logLevel: 'warning',
      legalComments: 'none',
      banner: { js: `// code-session-gate: the CommonJS form of ${name}.js (generated by esbuild).` },
      ...options,
    });
  // Read from src/js/cjs/, resolved in the package (where the glue and the copied entries are).
  await bundle('node', {
    stdin: { contents: readFileSync(join(src, 'cjs', 'node.js'), 'utf8'), resolveDir: outDir, sourcefile: 'cjs/node.js' },
  });
  await bundle('slim', { entryPoints: [join(outDir, 'slim.js')] });
  await bundle('inline', { entryPoints: [join(outDir, 'inline.js')] });
  const toCts = (text) => text.replace(/(from\s+|import\()(['"])\.\/([\w.-]+)\.js\2/g, '$1$2./$3.cjs$2');
  for (const f of ['api', 'slim', 'node', 'inline', `${NAME}_bg.wasm`]) {
    writeFileSync(join(outDir, `${f}.d.cts`), toCts(readFileSync(join(outDir, `${f}.d.ts`), 'utf8')));
  }
}

// 4. package.json, with the crate's version.
const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
const version = /^version\s*=\s*"([^"]+)"/m.exec(cargo)?.[1];
if (!version) fail('no version in Cargo.toml');
const pkg = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8'));
pkg.version = version;
const repository = /^repository\s*=\s*"([^"]+)"/m.exec(cargo)?.[1];
if (!repository) fail('no repository in Cargo.toml');
pkg.repository = { type: 'git', url: `git+${repository}.git` };
pkg.homepage = `${repository}#readme`;
pkg.bugs = { url: `${repository}/issues` };

// 5. `files` lists exactly what is there; every path the manifest names exists.
const present = readdirSync(outDir).filter((f) => f !== 'package.json').sort();
const listed = [...pkg.files].sort();
const missing = listed.filter((f) => !present.includes(f));
const unlisted = present.filter((f) => !listed.includes(f));
if (missing.length || unlisted.length) {
  fail(`src/js/package.json "files" is out of date: missing ${JSON.stringify(missing)}, unlisted ${JSON.stringify(unlisted)}`);
}
const targets = [];
const collect = (v) => (typeof v === 'string' ? targets.push(v) : Object.values(v).forEach(collect));
collect(pkg.exports);
targets.push(pkg.types, ...pkg.sideEffects);
for (const t of targets) {
  if (t !== './package.json' && !existsSync(join(outDir, t))) fail(`package.json names ${t}, which is not built`);
}
writeFileSync(join(outDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`assembled ${basename(outDir)}/: ${pkg.name}@${version}`);
