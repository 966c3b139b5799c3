// Loading errors fit the host that failed, and point to a README the user has: the browser entry's fix
// list per host (Vite's pre-bundled copy, an edge runtime, a local file, a bundle served without its
// .wasm), every section a message cites exists in the tarball's README, which carries the whole API;
// and /slim takes a module (or bytes) made in another realm. From the packed tarball in a throwaway
// consumer, each case in a fresh Node process.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXPECTED_REF, PKG_DIR, PKG_NAME, lastJson, makeConsumer, run } from './consumer.mjs';

let consumer;
before(() => {
  consumer = makeConsumer();
});
after(() => consumer?.cleanup());

/**
 * Runs `source` as file `name` in the consumer folder; returns its last JSON line.
 * @param {string} name
 * @param {string} source
 */
async function nodeRun(name, source) {
  const file = join(consumer.dir, name);
  writeFileSync(file, source);
  const r = await run(process.execPath, [file], { cwd: consumer.dir });
  assert.equal(r.code, 0, `node ${name} failed:\n${r.stderr}${r.stdout}`);
  return lastJson(r.stdout);
}

/**
 * The message `init({ sandbox: false })` of the browser entry at `entry` (relative to the consumer)
 * rejects with when fetch answers `answer` (JavaScript source of a function of the URL), after
 * `setup` (JavaScript source) ran.
 * @param {string} name
 * @param {string} entry
 * @param {string} answer
 * @param {string} [setup]
 */
async function browserFailure(name, entry, answer, setup = '') {
  return nodeRun(
    name,
    `
    ${setup}
    const urls = [];
    globalThis.fetch = async (url) => { urls.push(String(url)); return (${answer})(String(url)); };
    const { default: init } = await import(${JSON.stringify(entry)});
    let failure;
    try { await init({ sandbox: false }); failure = 'resolved'; } catch (e) { failure = { code: e.code, message: e.message }; }
    console.log(JSON.stringify({ urls, failure }));
  `,
  );
}

const HTML = "() => new Response('<!doctype html><html></html>', { headers: { 'content-type': 'text/html' } })";

describe('the browser entry names the fix for the host that failed', () => {
  test("Vite's pre-bundled copy (node_modules/.vite/deps/): optimizeDeps.exclude, nothing for other hosts", async () => {
    // The package's files where Vite's dev server puts its pre-bundled copy.
    const deps = join(consumer.dir, 'node_modules', '.vite', 'deps');
    mkdirSync(deps, { recursive: true });
    for (const f of readdirSync(join(consumer.dir, 'node_modules', PKG_NAME))) {
      if (f.endsWith('.js')) cpSync(join(consumer.dir, 'node_modules', PKG_NAME, f), join(deps, f));
    }
    const out = await browserFailure('vite-deps.mjs', './node_modules/.vite/deps/browser.js', HTML);
    assert.match(out.urls[0], /\/node_modules\/\.vite\/deps\/code_session_gate_bg\.wasm$/);
    assert.equal(out.failure.code, 'not_wasm');
    assert.match(out.failure.message, /Vite \(before 8\) pre-bundled the package .*optimizeDeps: \{ exclude: \["code-session-gate"\] \}/);
    assert.doesNotMatch(out.failure.message, /edge|Deno|Rollup/);
  });

  test('an edge runtime (EdgeRuntime set, the fetch fails): the inline entry and the edge-light condition, not Vite', async () => {
    const out = await browserFailure(
      'edge.mjs',
      `./node_modules/${PKG_NAME}/browser.js`,
      "() => { throw new TypeError('fetch failed'); }",
      "globalThis.EdgeRuntime = 'edge-runtime';",
    );
    assert.equal(out.failure.code, 'wasm_not_found');
    assert.match(out.failure.message, /fetch failed/);
    assert.match(out.failure.message, /An edge runtime .*import "code-session-gate\/inline" \(what the package's edge-light condition serves/);
    assert.doesNotMatch(out.failure.message, /optimizeDeps|Deno/);
  });

  test('every loading error cites one README section, and the tarball README has it', () => {
    const readme = readFileSync(join(PKG_DIR, 'README.md'), 'utf8');
    const headings = new Set([...readme.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1].trim()));
    const cited = new Set();
    for (const f of readdirSync(PKG_DIR).filter((f) => /\.c?js$/.test(f) && !f.includes('base64'))) {
      for (const m of readFileSync(join(PKG_DIR, f), 'utf8').matchAll(/README "([^"]+)"/g)) cited.add(m[1]);
    }
    assert.ok(cited.size > 0, 'the entries cite a README section');
    assert.deepEqual([...cited], ['Using it in a host'], 'one section name, the same in every message');
    for (const name of cited) assert.ok(headings.has(name), `the tarball README has no section "${name}"`);
  });

  test('the tarball README carries the API and points to no file it does not ship', () => {
    const readme = readFileSync(join(PKG_DIR, 'README.md'), 'utf8');
    const shipped = new Set(JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')).files);
    for (const heading of ['## Using it in a host', '## API', '### The gate', '### Wire and planning', '### Snapshots', '## Errors', '## Limits']) {
      assert.ok(readme.includes(`\n${heading}\n`), `no "${heading}" section`);
    }
    for (const name of ['recover', 'initSandbox', 'buildExecRequest', 'readExecResponse', 'planToolRequests', 'JsonText', 'limits()']) {
      assert.ok(readme.includes(name), `the README does not mention ${name}`);
    }
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
    for (const link of links) {
      if (/^(https?:|#)/.test(link)) continue;
      assert.ok(shipped.has(link.replace(/^\.\//, '')), `the README links to ${link}, which the tarball does not ship`);
    }
    assert.doesNotMatch(readme, /repository's README/, 'no pointer to a README the user does not have');
  });
});

// What Next.js's Turbopack does to the node entry in a server bundle: the .wasm's URL becomes a URL-like
// object of its own, a path it serves (`/_next/static/media/….wasm`, no protocol), which readFileSync
// refuses. The entry then reads the installed package's .wasm, found from the working directory; where
// the package is not installed there, the typed error names serverExternalPackages.
describe('node entry: a bundler replaced the .wasm URL by one it serves', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    import { pathToFileURL } from 'node:url';
    const dir = pathToFileURL(process.argv[2] + '/node_modules/${PKG_NAME}/');
    // Turbopack's relative URL: URL's prototype, a served path for href, no protocol (own properties).
    const served = (p) => 'Object.defineProperties(Object.create(URL.prototype), { href: { value: ' + JSON.stringify(p) +
      ', enumerable: true }, protocol: { value: "" }, toString: { value() { return this.href; } } })';
    const source = readFileSync(new URL('node.js', dir), 'utf8')
      .replace(/new URL\\('\\.\\/(\\w+)\\.wasm', import\\.meta\\.url\\)/g, (_, f) => served('/_next/static/media/' + f + '.0a1b2c.wasm'))
      .replace(/from '\\.\\/(\\w+)\\.js'/g, (_, f) => 'from ' + JSON.stringify(new URL(f + '.js', dir).href));
    let out;
    try {
      const entry = await import('data:text/javascript,' + encodeURIComponent(source));
      out = { ref: entry.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'), stripped: entry.stripTrustedFields({ session_id: 'x', code: '1' }) };
    } catch (e) {
      out = { name: e.name, code: e.code, message: e.message };
    }
    console.log(JSON.stringify(out));
  `;

  test('the installed package where the server runs: its .wasm is read, both modules', async () => {
    writeFileSync(join(consumer.dir, 'served-url.mjs'), script);
    const r = await run(process.execPath, [join(consumer.dir, 'served-url.mjs'), consumer.dir], { cwd: consumer.dir });
    assert.equal(r.code, 0, r.stderr);
    const out = lastJson(r.stdout);
    assert.deepEqual(out.ref, EXPECTED_REF, JSON.stringify(out));
    assert.deepEqual(out.stripped, { args: { code: '1' }, dropped: ['session_id'] });
  });

  test('not installed where it runs: wasm_not_found naming serverExternalPackages', async () => {
    writeFileSync(join(consumer.dir, 'served-url.mjs'), script);
    const elsewhere = mkdtempSync(join(tmpdir(), 'csg-elsewhere-'));
    try {
      const r = await run(process.execPath, [join(consumer.dir, 'served-url.mjs'), consumer.dir], { cwd: elsewhere });
      assert.equal(r.code, 0, r.stderr);
      const out = lastJson(r.stdout);
      assert.equal(out.code, 'wasm_not_found', JSON.stringify(out));
      assert.match(out.message, /replaced the URL of code_session_gate_bg\.wasm by "\/_next\/static\/media\/code_session_gate_bg\.0a1b2c\.wasm"/);
      assert.match(out.message, /serverExternalPackages: \["code-session-gate"\]/);
      assert.match(out.message, /README "Using it in a host"/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('/slim takes a module from another realm', () => {
  test('a WebAssembly.Module and bytes made in a vm context: initSync, init and the sandbox module', async () => {
    const out = await nodeRun(
      'slim-realm.mjs',
      `
      import { readFileSync } from 'node:fs';
      import vm from 'node:vm';
      import * as slim from '${PKG_NAME}/slim';
      const dir = new URL('./node_modules/${PKG_NAME}/', import.meta.url);
      const realm = vm.createContext({ core: readFileSync(new URL('code_session_gate_bg.wasm', dir)), sandbox: readFileSync(new URL('code_session_sandbox_bg.wasm', dir)) });
      const module = vm.runInContext('new WebAssembly.Module(new Uint8Array(core))', realm);
      const sandboxBytes = vm.runInContext('new Uint8Array(sandbox)', realm);
      const foreign = !(module instanceof WebAssembly.Module) && !(sandboxBytes instanceof Uint8Array);
      // Something else from that realm: the typed refusal, not a raw TypeError.
      let refused;
      try { slim.initSync({ module: vm.runInContext('({})', realm) }); } catch (e) { refused = { name: e.name, code: e.code }; }
      slim.initSync({ module });
      const ref = slim.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0');
      slim.initSandboxSync({ module: sandboxBytes });
      const stripped = slim.stripTrustedFields({ session_id: 'x', code: '1' });
      // Recovery and the async form take the foreign module too.
      await slim.default({ module_or_path: vm.runInContext('new WebAssembly.Module(new Uint8Array(core))', realm) });
      console.log(JSON.stringify({ foreign, ref, stripped, tools: slim.CODE_EXECUTION_TOOLS.length, refused }));
    `,
    );
    assert.equal(out.foreign, true, 'the module and bytes come from another realm');
    assert.deepEqual(out.ref, EXPECTED_REF);
    assert.deepEqual(out.stripped, { args: { code: '1' }, dropped: ['session_id'] });
    assert.ok(out.tools > 0);
    assert.deepEqual(out.refused, { name: 'CodeSessionGateError', code: 'invalid_type' });
  });
});
