// The entries beyond ESM Node, from the packed tarball in a throwaway consumer, each in a fresh Node
// process: the CommonJS entry (with and without require(esm)), the inline entry (with the .wasm file
// gone from the package, so nothing can be read beside it), and the browser entry's checked fetch of
// the .wasm (fetch stubbed: what a misconfigured dev server or CDN answers) and its typed error when
// there is no URL to fetch it from; the node entry bundled for Node (node-bundled.js) with no .wasm beside it.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXPECTED_REF, PKG_DIR, PKG_NAME, lastJson, makeConsumer, run } from './consumer.mjs';

let consumer;
before(() => {
  consumer = makeConsumer();
});
after(() => consumer?.cleanup());

/**
 * Runs `source` as file `name` in the consumer folder with `flags`; returns its last JSON line.
 * @param {string} name
 * @param {string} source
 * @param {string[]} [flags]
 */
async function nodeRun(name, source, flags = []) {
  const file = join(consumer.dir, name);
  writeFileSync(file, source);
  const r = await run(process.execPath, [...flags, file], { cwd: consumer.dir });
  assert.equal(r.code, 0, `node ${flags.join(' ')} ${name} failed:\n${r.stderr}${r.stdout}`);
  return lastJson(r.stdout);
}

const CJS_PROBE = `
  const pkg = require('${PKG_NAME}');
  let err = null;
  try { pkg.toInjectedFileRef({ name: 'a' }, 'e0'); } catch (e) { err = { name: e.name, code: e.code, path: e.path, guard: pkg.isCodeSessionGateError(e, 'missing_field') }; }
  const gate = new pkg.Gate({ codeSessionToolNames: ['create_file'] });
  const verdict = gate.verdict('create_file');
  gate.free();
  let freed = null;
  try { gate.verdict('create_file'); } catch (e) { freed = e.code; }
  // The async init() of the CommonJS copy is the API's function (a no-op here: loaded at require).
  pkg.default().then((initResolved) => console.log(JSON.stringify({
    resolved: require.resolve('${PKG_NAME}').split('/').pop(),
    frozen: Object.isFrozen(pkg.CODE_EXECUTION_TOOLS),
    tools: pkg.CODE_EXECUTION_TOOLS,
    ref: pkg.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
    err, verdict, freed,
    init: typeof pkg.default,
    initResolved,
  })));
`;

describe('CommonJS entry (node.cjs)', () => {
  for (const flags of [[], ['--no-experimental-require-module']]) {
    test(`require() works synchronously${flags.length ? ` with ${flags[0]}` : ''}`, async () => {
      const out = await nodeRun(`probe-${flags.length}.cjs`, CJS_PROBE, flags);
      assert.equal(out.resolved, 'node.cjs');
      assert.equal(out.frozen, true);
      assert.ok(out.tools.includes('execute_code'));
      assert.deepEqual(out.ref, EXPECTED_REF);
      assert.deepEqual(out.err, { name: 'CodeSessionGateError', code: 'missing_field', path: 'file.id', guard: true });
      assert.ok(out.verdict > 0);
      assert.equal(out.freed, 'freed');
      assert.equal(out.init, 'function');
      assert.equal(out.initResolved, undefined);
    });
  }

  test('an error of the CommonJS copy is recognised by the ESM copy (shape, not instanceof)', async () => {
    const out = await nodeRun(
      'cross.mjs',
      `
      import { createRequire } from 'node:module';
      import { isCodeSessionGateError } from '${PKG_NAME}';
      const cjs = createRequire(import.meta.url)('${PKG_NAME}');
      let e;
      try { cjs.toInjectedFileRef({ id: 1, name: 'a' }, 'e0'); } catch (x) { e = x; }
      console.log(JSON.stringify({ any: isCodeSessionGateError(e), typed: isCodeSessionGateError(e, 'invalid_type'), other: isCodeSessionGateError(e, 'freed') }));
    `,
    );
    assert.deepEqual(out, { any: true, typed: true, other: false });
  });
});

describe('inline entry (code-session-gate/inline)', () => {
  test('works at import with no .wasm file beside it', async () => {
    rmSync(join(consumer.pkgDir, 'code_session_gate_bg.wasm'));
    const out = await nodeRun(
      'inline.mjs',
      `
      import init, { CODE_ENV_KINDS, Gate, recover, toInjectedFileRef } from '${PKG_NAME}/inline';
      const kinds = CODE_ENV_KINDS;
      const gate = new Gate({});
      console.log(JSON.stringify({
        kinds, frozen: Object.isFrozen(kinds),
        ref: toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
        verdict: gate.verdict('bash_tool') > 0,
        init: await init(),
        recovered: recover(),
      }));
    `,
    );
    assert.deepEqual(out.kinds, ['skill', 'agent', 'user']);
    assert.equal(out.frozen, true);
    assert.deepEqual(out.ref, EXPECTED_REF);
    assert.equal(out.verdict, true);
    assert.equal(out.init, undefined);
    assert.equal(out.recovered, false, 'nothing was poisoned');
  });

  test('require() of the inline and slim subpaths (one CommonJS API), still with no .wasm file', async () => {
    const out = await nodeRun(
      'inline.cjs',
      `
      const inline = require('${PKG_NAME}/inline');
      const slim = require('${PKG_NAME}/slim');
      console.log(JSON.stringify({
        files: [require.resolve('${PKG_NAME}/inline'), require.resolve('${PKG_NAME}/slim')].map((f) => f.split('/').pop()),
        ref: inline.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
        tools: inline.CODE_EXECUTION_TOOLS.length > 0,
        slimRef: slim.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
        oneGate: slim.Gate === inline.Gate,
      }));
    `,
      ['--no-experimental-require-module'],
    );
    assert.deepEqual(out.files, ['inline.cjs', 'slim.cjs']);
    assert.deepEqual(out.ref, EXPECTED_REF);
    assert.equal(out.tools, true);
    // The CommonJS entries share one API and one instance, as the ESM entries do: the inline entry
    // initialised the slim one.
    assert.deepEqual(out.slimRef, EXPECTED_REF);
    assert.equal(out.oneGate, true);
  });
});

// The browser entry in Node: fetch is stubbed (Node's fetch cannot read the file: URL beside the
// entry), so each answer a host could get is tried in turn in one process; failures leave the module
// uninitialised, so the next try fetches again.
describe('browser entry: the .wasm fetch is checked', () => {
  test('a network error, a 404, an HTML page are typed errors naming the URL and the fix; then the module loads', async () => {
    const out = await nodeRun(
      'browser.mjs',
      `
      import { readFileSync } from 'node:fs';
      import init, { toInjectedFileRef, isCodeSessionGateError } from './node_modules/${PKG_NAME}/browser.js';
      // From the built package: the inline test removed the consumer's copy.
      const wasm = readFileSync(${JSON.stringify(join(PKG_DIR, 'code_session_gate_bg.wasm'))});
      const answers = [
        () => { throw new TypeError('connection refused'); },
        () => new Response('Not Found', { status: 404, statusText: 'Not Found', headers: { 'content-type': 'text/plain' } }),
        () => new Response('<!doctype html><html><body>app</body></html>', { headers: { 'content-type': 'text/html' } }),
        () => new Response(wasm, { headers: { 'content-type': 'application/octet-stream' } }),
      ];
      let fetches = 0;
      const urls = [];
      globalThis.fetch = async (url) => { urls.push(String(url)); return answers[fetches++](); };
      const tries = [];
      for (let i = 0; i < 3; i++) {
        try { await init({ sandbox: false }); tries.push('resolved'); }
        catch (e) { tries.push({ code: e.code, name: e.name, guard: isCodeSessionGateError(e), message: e.message }); }
      }
      let before = null;
      try { toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'); } catch (e) { before = e.code; }
      const loaded = (await Promise.all([init({ sandbox: false }), init({ sandbox: false })])).map((v) => typeof v);
      await init({ sandbox: false });
      console.log(JSON.stringify({ tries, before, loaded, fetches, urls, ref: toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0') }));
    `,
    );
    const [network, missing, html] = out.tries;
    const url = out.urls[0];
    assert.match(url, /^file:.*\/code_session_gate_bg\.wasm$/);
    for (const t of [network, missing, html]) {
      assert.equal(t.name, 'CodeSessionGateError');
      assert.equal(t.guard, true);
      assert.ok(t.message.includes(url), `names the URL: ${t.message}`);
      // A file: URL: the fix for local runtimes, not a bundler's (tests/js/errors-fit.test.mjs has the others).
      assert.match(t.message, /Deno reads it with --allow-read/);
      assert.doesNotMatch(t.message, /optimizeDeps/);
      assert.match(t.message, /code-session-gate\/inline/);
    }
    assert.equal(network.code, 'wasm_not_found');
    assert.match(network.message, /connection refused/);
    assert.equal(missing.code, 'wasm_not_found');
    assert.match(missing.message, /HTTP 404 Not Found \(text\/plain\), body starts "Not Found"/);
    assert.equal(html.code, 'not_wasm');
    assert.match(html.message, /text\/html, \d+ bytes starting 3c 21 64 6f/);
    assert.match(html.message, /an HTML page/);
    assert.equal(out.before, 'not_initialized');
    // Two concurrent first calls shared one fetch, and later calls fetched nothing.
    assert.deepEqual(out.loaded, ['undefined', 'undefined']);
    assert.equal(out.fetches, 4);
    assert.deepEqual(out.ref, EXPECTED_REF);
  });

  test('init({ sandbox: false }): a page that only gates fetches the core module alone; a sandbox call names initSandbox(), which fetches the second', async () => {
    const out = await nodeRun(
      'browser-two-modules.mjs',
      `
      import { readFileSync } from 'node:fs';
      import init, * as csg from './node_modules/${PKG_NAME}/browser.js';
      const urls = [];
      globalThis.fetch = async (url) => {
        urls.push(String(url).replace(/^.*\\//, ''));
        const file = ${JSON.stringify(PKG_DIR)} + '/' + String(url).replace(/^.*\\//, '');
        return new Response(readFileSync(file), { headers: { 'content-type': 'application/wasm' } });
      };
      await init({ sandbox: false });
      // Everything a gating host does: gates, contexts, folds, batches, narrowing, the planner.
      const gate = new csg.Gate({ codeSessionToolNames: ['create_file'] });
      gate.updateSession('execute_code', { session_id: 'e1', files: [{ id: 'f', name: 'a.py' }] }, { now: 1 });
      const batch = gate.beginEventBatch([{ id: 'c1', name: 'bash_tool', args: {} }], { threadId: 't' });
      gate.completeEventBatch(batch.id, { requests: batch.dispatch, results: [], now: 2 });
      const context = gate.contextForCall('event', 'create_file', { threadId: 't' });
      csg.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0');
      csg.planToolRequests([{ id: 'c1', name: 'bash_tool', args: {} }], {});
      const gated = [...urls];
      let refused;
      try { csg.stripTrustedFields({ session_id: 'x' }); } catch (e) { refused = { code: e.code, message: e.message }; }
      await csg.initSandbox();
      await csg.initSandbox();
      const stripped = csg.stripTrustedFields({ session_id: 'x', code: '1' });
      const explained = csg.explainInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0').file;
      console.log(JSON.stringify({ gated, refused, urls, stripped, explained, files: gate.session('execute_code').files.length, context: typeof context }));
    `,
    );
    assert.deepEqual(out.gated, ['code_session_gate_bg.wasm']);
    assert.equal(out.files, 1);
    assert.equal(out.refused.code, 'not_initialized');
    assert.match(out.refused.message, /stripTrustedFields\(\) runs in the sandbox module \(code_session_sandbox_bg\.wasm\).*await initSandbox\(\)/);
    assert.doesNotMatch(out.refused.message, /loading it failed/);
    assert.deepEqual(out.urls, ['code_session_gate_bg.wasm', 'code_session_sandbox_bg.wasm']);
    assert.deepEqual(out.stripped, { args: { code: '1' }, dropped: ['session_id'] });
    assert.deepEqual(out.explained, EXPECTED_REF);
  });

  test('init() fetches both modules; a sandbox module it cannot fetch fails no gating, and the sandbox calls say why', async () => {
    const out = await nodeRun(
      'browser-no-sandbox.mjs',
      `
      import { readFileSync } from 'node:fs';
      import init, * as csg from './node_modules/${PKG_NAME}/browser.js';
      const urls = [];
      globalThis.fetch = async (url) => {
        const file = String(url).replace(/^.*\\//, '');
        urls.push(file);
        if (file !== 'code_session_gate_bg.wasm') return new Response('Not Found', { status: 404, statusText: 'Not Found' });
        return new Response(readFileSync(${JSON.stringify(PKG_DIR)} + '/' + file), { headers: { 'content-type': 'application/wasm' } });
      };
      await init();
      const verdict = new csg.Gate({}).verdict('bash_tool');
      let refused;
      try { csg.stripTrustedFields({}); } catch (e) { refused = { code: e.code, message: e.message, cause: e.cause?.code }; }
      console.log(JSON.stringify({ urls: urls.sort(), verdict, refused }));
    `,
    );
    assert.deepEqual(out.urls, ['code_session_gate_bg.wasm', 'code_session_sandbox_bg.wasm']);
    assert.equal(out.verdict, 127);
    assert.equal(out.refused.code, 'not_initialized');
    assert.match(out.refused.message, /loading it failed: .*code_session_sandbox_bg\.wasm: HTTP 404 Not Found/);
    assert.equal(out.refused.cause, 'wasm_not_found');
  });

  // What a bundle in iife or CommonJS format does to the entry (esbuild empties import.meta there): the
  // entry is loaded from a data: URL, which is no base for the .wasm's relative URL either (its own
  // imports rewritten to the package's files, so the rest of the package is the installed one).
  test('no URL to locate the .wasm by (import.meta.url unusable): init() and recover() reject with the typed error naming the fix', async () => {
    const out = await nodeRun(
      'browser-no-url.mjs',
      `
      import { readFileSync } from 'node:fs';
      const dir = new URL('./node_modules/${PKG_NAME}/', import.meta.url);
      const source = readFileSync(new URL('browser.js', dir), 'utf8')
        .replace(/from '\\.\\/(\\w+)\\.js'/g, (_, f) => 'from ' + JSON.stringify(new URL(f + '.js', dir).href));
      const entry = await import('data:text/javascript,' + encodeURIComponent(source));
      const wasm = readFileSync(${JSON.stringify(join(PKG_DIR, 'code_session_gate_bg.wasm'))});
      let fetches = 0;
      globalThis.fetch = async () => { fetches++; throw new TypeError('no fetch expected'); };
      const shape = (e) => ({ name: e?.name, code: e?.code, message: e?.message, guard: entry.isCodeSessionGateError(e, 'wasm_not_found'), cause: e?.cause?.name });
      const rejection = async (call) => {
        let pending;
        try { pending = call(); } catch (e) { return { sync: true, ...shape(e) }; }
        try { await pending; return 'resolved'; } catch (e) { return { sync: false, ...shape(e) }; }
      };
      let before = null;
      try { new entry.Gate({}); } catch (e) { before = e.code; }
      const tries = [await rejection(() => entry.default()), await rejection(() => entry.default()), await rejection(() => entry.recover())];
      // The fix the message names: pass the module yourself.
      const loaded = typeof (await entry.default({ module_or_path: wasm }));
      console.log(JSON.stringify({ before, tries, fetches, loaded, ref: entry.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0') }));
    `,
    );
    assert.equal(out.before, 'not_initialized');
    for (const t of out.tries) {
      assert.equal(t.sync, false, 'a rejected promise, not a synchronous throw');
      assert.equal(t.name, 'CodeSessionGateError');
      assert.equal(t.code, 'wasm_not_found');
      assert.equal(t.guard, true);
      assert.equal(t.cause, 'TypeError');
      assert.match(t.message, /import\.meta\.url is not a URL/);
      assert.match(t.message, /code_session_gate_bg\.wasm beside it cannot be found/);
      assert.match(t.message, /import "code-session-gate\/inline"/);
      assert.match(t.message, /init\(\{ module_or_path \}\)/);
      assert.doesNotMatch(t.message, /optimizeDeps/);
    }
    assert.equal(out.fetches, 0);
    assert.equal(out.loaded, 'undefined');
    assert.deepEqual(out.ref, EXPECTED_REF);
  });
});

// The Node entries read the .wasm beside themselves at import (and again in recover()). Where it cannot
// be located (import.meta.url no URL: esbuild's CommonJS bundles empty import.meta; here the entry is
// loaded from a data: URL) or read (ENOENT: the file is gone), they throw the typed error naming the
// fix, not a TypeError "Invalid URL" or a bare ENOENT.
describe('node entries: the .wasm cannot be located or read', () => {
  test('import, recover() and require() throw wasm_not_found naming code-session-gate/inline', async () => {
    const out = await nodeRun(
      'node-no-wasm.mjs',
      `
      import { copyFileSync, readFileSync, rmSync } from 'node:fs';
      import { createRequire } from 'node:module';
      const dir = new URL('./node_modules/${PKG_NAME}/', import.meta.url);
      const wasmFile = new URL('code_session_gate_bg.wasm', dir);
      const shape = (e) => ({ name: e?.name, code: e?.code, message: e?.message, cause: e?.cause?.name, errno: e?.cause?.code });
      const failure = async (load) => { try { await load(); return 'loaded'; } catch (e) { return shape(e); } };
      // The inline test removed the consumer's copy: put it back for the imports that must work.
      copyFileSync(${JSON.stringify(join(PKG_DIR, 'code_session_gate_bg.wasm'))}, wasmFile);
      const source = readFileSync(new URL('node.js', dir), 'utf8')
        .replace(/from '\\.\\/(\\w+)\\.js'/g, (_, f) => 'from ' + JSON.stringify(new URL(f + '.js', dir).href));
      const noUrl = await failure(() => import('data:text/javascript,' + encodeURIComponent(source)));
      const entry = await import('${PKG_NAME}');
      rmSync(wasmFile);
      let recovered;
      try { recovered = entry.recover(); } catch (e) { recovered = { ...shape(e), guard: entry.isCodeSessionGateError(e, 'wasm_not_found') }; }
      const missing = await failure(() => import(new URL('node.js?fresh', dir).href));
      const required = await failure(() => createRequire(import.meta.url)('${PKG_NAME}'));
      console.log(JSON.stringify({ noUrl, recovered, missing, required }));
    `,
    );
    const fixes = (t) => {
      assert.equal(t.name, 'CodeSessionGateError');
      assert.equal(t.code, 'wasm_not_found');
      assert.match(t.message, /import "code-session-gate\/inline"/);
      assert.match(t.message, /--external:code-session-gate/);
      assert.match(t.message, /"code-session-gate\/slim" and call initSync\(\{ module \}\)/);
      assert.doesNotMatch(t.message, /optimizeDeps|module_or_path/);
    };
    fixes(out.noUrl);
    assert.equal(out.noUrl.cause, 'TypeError');
    assert.match(out.noUrl.message, /import\.meta\.url is not a URL/);
    for (const t of [out.recovered, out.missing, out.required]) {
      fixes(t);
      assert.equal(t.errno, 'ENOENT');
      assert.match(t.message, /cannot read its WebAssembly module at \/.*\/code_session_gate_bg\.wasm: ENOENT/);
    }
    assert.equal(out.recovered.guard, true);
  });

  test('bundled for Node (node-bundled.js, the module condition): with neither .wasm beside it, both modules come from the base64 it carries', async () => {
    const out = await nodeRun(
      'node-bundled-no-wasm.mjs',
      `
      import { copyFileSync, existsSync, rmSync } from 'node:fs';
      const dir = new URL('./node_modules/${PKG_NAME}/', import.meta.url);
      const files = ['code_session_gate_bg.wasm', 'code_session_sandbox_bg.wasm'];
      for (const f of files) if (existsSync(new URL(f, dir))) rmSync(new URL(f, dir));
      const shape = (e) => ({ name: e?.name, code: e?.code });
      let out;
      try {
        const entry = await import(new URL('node-bundled.js', dir).href);
        const explained = entry.explainInjectedFileRef({ id: 's', name: 'SKILL.md', kind: 'skill' }, 'exec-1');
        out = {
          tools: entry.CODE_EXECUTION_TOOLS,
          ref: entry.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
          sandbox: explained.file,
          recovered: entry.recover(),
        };
      } catch (e) {
        out = { threw: shape(e), message: e?.message };
      }
      // Put both files back for any later test of this consumer.
      for (const f of files) copyFileSync(new URL(f, ${JSON.stringify(`file://${PKG_DIR}/`)}), new URL(f, dir));
      console.log(JSON.stringify(out));
    `,
    );
    assert.equal(out.threw, undefined, JSON.stringify(out));
    assert.ok(Array.isArray(out.tools) && out.tools.length > 0);
    assert.deepEqual(out.ref, EXPECTED_REF);
    assert.equal(out.sandbox.kind, 'user', 'a skill without a version narrows to a user file, in the sandbox module');
    assert.equal(out.recovered, false, 'nothing was poisoned');
  });
});
