#!/usr/bin/env node
// Assembles the npm package from the optimised module and the hand-written files of src/js/:
//
//   node scripts/assemble-pkg.mjs <dir of the two .wasm> <package dir to create> <check-sdk package dir to create>
//
// Two packages: the runtime one (code-session-gate: the entries, their modules and types) and the drift
// command's (code-session-gate-check-sdk: src/check-sdk/ bundled, with the vectors it replays), which
// depends on the runtime one at the same version.
//
// - each module must import nothing and export what src/js/engine.js needs;
// - the package.json template gets the crate's version from Cargo.toml;
// - `files` of the template must list exactly the files produced (checked both ways).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const NAME = 'code_session_gate';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [moduleDir, outDir, checkSdkDir] = process.argv.slice(2).map((p) => resolve(p));
if (!moduleDir || !outDir || !checkSdkDir) {
  console.error('usage: assemble-pkg.mjs <module dir> <package dir> <check-sdk package dir>');
  process.exit(2);
}
const fail = (msg) => {
  console.error(`assemble-pkg: ${msg}`);
  process.exit(1);
};

mkdirSync(outDir, { recursive: true });

// 1. The two modules (already passed through wasm-opt). They import nothing and need no generated
// glue: src/js/engine.js instantiates them and checks their exports (its CORE and SANDBOX lists).
const MODULES = [`${NAME}_bg`, 'code_session_sandbox_bg'];
{
  const { CORE, SANDBOX } = await import(pathToFileURL(join(root, 'src', 'js', 'engine.js')).href);
  for (const [name, kind] of [[MODULES[0], CORE], [MODULES[1], SANDBOX]]) {
    const wasm = join(moduleDir, `${name}.wasm`);
    if (!existsSync(wasm)) fail(`missing ${name}.wasm in ${moduleDir}`);
    if (kind.file !== `${name}.wasm`) fail(`src/js/engine.js names ${kind.file} where the build makes ${name}.wasm`);
    const module = new WebAssembly.Module(readFileSync(wasm));
    const imports = WebAssembly.Module.imports(module);
    if (imports.length > 0) fail(`${name}.wasm imports ${imports.map((i) => `${i.module}.${i.name}`).join(', ')}; it must import nothing`);
    const exported = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
    const absent = kind.exports.filter((n) => !exported.has(n));
    if (absent.length > 0) fail(`${name}.wasm lacks the exports src/js/engine.js needs: ${absent.join(', ')}`);
    copyFileSync(wasm, join(outDir, `${name}.wasm`));
  }
}

// 3. The hand-written entries and their types, the package's README (src/js/README.md with the
// repository README's API, Errors and Limits) and the LICENSE.
const src = join(root, 'src', 'js');
for (const f of readdirSync(src)) {
  if (f === 'package.json') continue;
  // guard.d.ts types an internal module for the repository's editors: no shipped declaration imports it.
  if (f === 'guard.d.ts') continue;
  if (f.endsWith('.js') || f.endsWith('.d.ts')) copyFileSync(join(src, f), join(outDir, f));
}
copyFileSync(join(root, 'LICENSE'), join(outDir, 'LICENSE'));
writeFileSync(join(outDir, 'README.md'), packageReadme());

/**
 * The tarball's README: src/js/README.md (the hosts, their recipes and the loading errors) with the
 * repository README's reference sections in place of its `<!-- The API, … -->` line: "API" and
 * "Errors" whole, "Limits" up to its list of the project's own limits, so that the package carries the
 * whole API it ships. Links to repository files become links to the repository.
 */
function packageReadme() {
  const own = readFileSync(join(src, 'README.md'), 'utf8');
  const repo = readFileSync(join(root, 'README.md'), 'utf8');
  const marker = /^<!-- The API, errors and limits below: .*-->$/m;
  if (!marker.test(own)) fail('src/js/README.md has no "<!-- The API, errors and limits below: … -->" line');
  /** The section of the repository README that starts with `heading`, up to the next `## `. */
  const section = (heading) => {
    const at = repo.indexOf(`\n${heading}\n`);
    if (at < 0) fail(`README.md has no "${heading}" section`);
    const end = repo.indexOf('\n## ', at + heading.length + 2);
    return repo.slice(at + 1, end < 0 ? repo.length : end).trimEnd();
  };
  const limits = section('## Limits');
  const listAt = limits.indexOf('\n- ');
  const cargoText = readFileSync(join(root, 'Cargo.toml'), 'utf8');
  const repoUrl = /^repository\s*=\s*"([^"]+)"/m.exec(cargoText)?.[1];
  if (!repoUrl) fail('no repository in Cargo.toml');
  const text = [section('## API'), section('## Errors'), listAt < 0 ? limits : limits.slice(0, listAt).trimEnd()]
    .join('\n\n')
    .replace(/\]\((?!https?:|#)([^)]+)\)/g, (_, path) => `](${repoUrl}/blob/HEAD/${path.replace(/^\.\//, '')})`);
  return own.replace(marker, () => text);
}

// 3b. The inline entry's module texts: each optimised .wasm as base64, in a module of its own so that
// only `code-session-gate/inline` pulls them in.
for (const name of MODULES) {
  const wasm = readFileSync(join(outDir, `${name}.wasm`));
  writeFileSync(
    join(outDir, `${name}.base64.js`),
    `// ${name}.wasm (${wasm.length} bytes) as base64, for code-session-gate/inline. Generated.\n` +
      `export default ${JSON.stringify(wasm.toString('base64'))};\n`,
  );
}

// 3c. The CommonJS entries (the `require` conditions): each ESM entry and everything it imports,
// bundled into one CommonJS file by esbuild (pinned in the root package.json). node.cjs comes from
// src/js/cjs/node.js (it finds the .wasm through `__dirname`), inline.cjs from src/js/cjs/inline.js
// (the base64 modules left out: it requires them), slim.cjs from its ESM entry as it is. Their types: the ESM declarations copied as .d.cts with their relative imports
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
      // TextEncoder / TextDecoder from node:util (src/js/cjs/globals.js): Jest's jsdom environment has none.
      inject: [join(src, 'cjs', 'globals.js')],
      ...options,
    });
  // Read from src/js/cjs/, resolved in the package (where the glue and the copied entries are).
  await bundle('node', {
    stdin: { contents: readFileSync(join(src, 'cjs', 'node.js'), 'utf8'), resolveDir: outDir, sourcefile: 'cjs/node.js' },
  });
  await bundle('slim', { entryPoints: [join(outDir, 'slim.js')] });
  // inline.cjs from src/js/cjs/inline.js: it requires the base64 modules from the package (kept
  // external, so the tarball holds each module's text once) instead of carrying copies.
  await bundle('inline', {
    stdin: { contents: readFileSync(join(src, 'cjs', 'inline.js'), 'utf8'), resolveDir: outDir, sourcefile: 'cjs/inline.js' },
    external: MODULES.map((m) => `./${m}.base64.js`),
  });
  const toCts = (text) => text.replace(/(from\s+|import\()(['"])\.\/([\w.-]+)\.js\2/g, '$1$2./$3.cjs$2');
  for (const f of ['api', 'ops', 'slim', 'node', 'inline', ...MODULES.map((m) => `${m}.wasm`)]) {
    writeFileSync(join(outDir, `${f}.d.cts`), toCts(readFileSync(join(outDir, `${f}.d.ts`), 'utf8')));
  }
}

// 4. The check-sdk package: the command (src/check-sdk/) bundled into one file, check-sdk.js (the
// runtime package stays a dependency: the command imports `code-session-gate` by name), the conformance
// vectors it replays (the shared vectors' copy and the project's own), its README and the trace format.
const checkSdkSrc = join(root, 'src', 'check-sdk');
mkdirSync(checkSdkDir, { recursive: true });
{
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(checkSdkSrc, 'bin.js')],
    outfile: join(checkSdkDir, 'check-sdk.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['code-session-gate'],
    logLevel: 'warning',
    legalComments: 'none',
  });
  copyFileSync(join(root, 'tests', 'conformance', 'upstream', 'vectors.json'), join(checkSdkDir, 'conformance-vectors.json'));
  copyFileSync(join(root, 'tests', 'conformance', 'vectors.json'), join(checkSdkDir, 'conformance-vectors-own.json'));
  for (const f of ['README.md', 'TRACE.md']) copyFileSync(join(checkSdkSrc, f), join(checkSdkDir, f));
  copyFileSync(join(root, 'LICENSE'), join(checkSdkDir, 'LICENSE'));
}

// 5. Each package.json, with the crate's version (the check-sdk package depends on the runtime one at
// that version), `files` listing exactly what is there, every path the manifest names built.
const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
const version = /^version\s*=\s*"([^"]+)"/m.exec(cargo)?.[1];
if (!version) fail('no version in Cargo.toml');
const repository = /^repository\s*=\s*"([^"]+)"/m.exec(cargo)?.[1];
if (!repository) fail('no repository in Cargo.toml');

/**
 * Writes `dir`/package.json from the template `template` with the crate's version and repository.
 * @param {string} template @param {string} dir
 * @returns {{ name: string, dependencies?: Record<string, string> }}
 */
function manifest(template, dir) {
  const pkg = JSON.parse(readFileSync(template, 'utf8'));
  pkg.version = version;
  if (pkg.dependencies?.['code-session-gate']) pkg.dependencies['code-session-gate'] = version;
  pkg.repository = { type: 'git', url: `git+${repository}.git` };
  pkg.homepage = `${repository}#readme`;
  pkg.bugs = { url: `${repository}/issues` };
  const present = readdirSync(dir).filter((f) => f !== 'package.json' && f !== 'node_modules').sort();
  const listed = [...pkg.files].sort();
  const missing = listed.filter((f) => !present.includes(f));
  const unlisted = present.filter((f) => !listed.includes(f));
  if (missing.length || unlisted.length) {
    fail(`${relative(root, template)} "files" is out of date: missing ${JSON.stringify(missing)}, unlisted ${JSON.stringify(unlisted)}`);
  }
  const targets = [];
  const collect = (v) => (typeof v === 'string' ? targets.push(v) : Object.values(v).forEach(collect));
  collect(pkg.exports ?? {});
  targets.push(...[pkg.types, pkg.main, pkg.module, pkg.browser].filter(Boolean), ...(pkg.sideEffects || []), ...Object.values(pkg.bin ?? {}));
  for (const t of targets) {
    if (t !== './package.json' && !existsSync(join(dir, t))) fail(`${relative(root, template)} names ${t}, which is not built`);
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  console.log(`assembled ${basename(dir)}/: ${pkg.name}@${version}`);
  return pkg;
}

manifest(join(src, 'package.json'), outDir);
manifest(join(checkSdkSrc, 'package.json'), checkSdkDir);
