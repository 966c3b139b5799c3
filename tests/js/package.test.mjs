// The built package as a consumer sees it: installed from its `npm pack` tarball and imported by
// name, so the `exports` map, `files` and the entries are what is tested. Also the fail-closed guard.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { EXPECTED_REF, PKG_DIR, PKG_NAME, ROOT, lastJson, makeConsumer, run } from './consumer.mjs';

let consumer;
/** The package imported by name from the consumer folder (its `node` entry). */
let pkg;
/** What the consumer's probe resolved, by name. */
let probe;

before(async () => {
  consumer = makeConsumer();
  const probeFile = join(consumer.dir, 'probe.mjs');
  writeFileSync(
    probeFile,
    [
      `export * as pkg from '${PKG_NAME}';`,
      `export const resolved = {`,
      `  main: import.meta.resolve('${PKG_NAME}'),`,
      `  slim: import.meta.resolve('${PKG_NAME}/slim'),`,
      `  wasm: import.meta.resolve('${PKG_NAME}/code_session_gate_bg.wasm'),`,
      `  manifest: import.meta.resolve('${PKG_NAME}/package.json'),`,
      `};`,
      '',
    ].join('\n'),
  );
  probe = await import(pathToFileURL(probeFile).href);
  pkg = probe.pkg;
});

after(() => consumer?.cleanup());

/** Runs an ES module source with node in the consumer folder (a fresh module instance). */
async function nodeIn(source) {
  const file = join(consumer.dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const r = await run(process.execPath, [file], { cwd: consumer.dir });
  assert.equal(r.code, 0, `node ${file} failed:\n${r.stderr}${r.stdout}`);
  return lastJson(r.stdout);
}

describe('package manifest', () => {
  const manifest = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));

  test('no shipped file names a path of the machine that built it', () => {
    // Panic locations in the .wasm name source files; the build remaps the registry's (under the home
    // folder), and the crate's own are relative. The JavaScript files are copied, never generated with paths.
    const machinePaths = [homedir(), ROOT].filter((p) => p.length > 1);
    for (const file of readdirSync(PKG_DIR)) {
      const text = readFileSync(join(PKG_DIR, file), 'latin1');
      for (const p of machinePaths) assert.ok(!text.includes(p), `${file} names ${p}`);
    }
  });

  test('is an ES module package with types first and specific runtimes before the fallbacks', () => {
    assert.equal(manifest.type, 'module');
    // Each runtime's branch carries its own types (what is set at import is typed as set), types first.
    assert.deepEqual(Object.keys(manifest.exports['.']), ['workerd', 'deno', 'bun', 'edge-light', 'node', 'browser', 'default']);
    /** The condition a branch starts with: a nested one before the branch's own types. */
    const first = { workerd: 'unwasm', 'edge-light': 'require', node: 'webpack' };
    for (const [condition, branch] of Object.entries(manifest.exports['.'])) {
      assert.equal(Object.keys(branch)[0], first[/** @type {keyof typeof first} */ (condition)] ?? 'types', condition);
    }
    // Nitro's Workers builds (unwasm) import the modules with `?module`; wrangler and Vitest the plain .wasm.
    assert.deepEqual(manifest.exports['.'].workerd.unwasm, { types: './workerd.d.ts', default: './unwasm.js' });
    // Edge runtimes (Next.js, Vercel) get the inline entry, as `code-session-gate/inline` serves it.
    assert.deepEqual(manifest.exports['.']['edge-light'], manifest.exports['./inline']);
    // Resolvers that ignore `exports` (Parcel's default, older tools).
    assert.deepEqual([manifest.main, manifest.module, manifest.browser], ['./node.cjs', './inline.js', './browser.js']);
    assert.deepEqual(manifest.exports['.'].node.require, { types: './node.d.cts', default: './node.cjs' });
    // Under `node`: bundlers (`webpack`: Next.js's server builds, whatever conditions they set; `module`:
    // Rollup, SvelteKit's adapter-node, esbuild) take the entry that carries the modules for a bundle
    // deployed without its .wasm; Node itself sets neither.
    assert.deepEqual(Object.keys(manifest.exports['.'].node), ['webpack', 'module', 'require', 'types', 'default']);
    assert.deepEqual(manifest.exports['.'].node.webpack, { types: './node.d.ts', default: './node-bundled.js' });
    assert.deepEqual(manifest.exports['.'].node.module, { types: './node.d.ts', default: './node-bundled.js' });
    assert.deepEqual(manifest.exports['.'].bun, { types: './node.d.ts', default: './bun.js' });
    // Every subpath has CommonJS types (and, for JavaScript, a CommonJS file) under `require`.
    for (const sub of ['./inline', './slim', './code_session_gate_bg.wasm']) {
      assert.deepEqual(Object.keys(manifest.exports[sub]), ['require', 'types', 'default'], sub);
      assert.match(manifest.exports[sub].require.types, /\.d\.cts$/, sub);
    }
    assert.ok(manifest.exports['./package.json']);
    // TypeScript's node10 resolution reads only `types`, for code Node runs: the node entry's CommonJS declarations.
    assert.equal(manifest.types, manifest.exports['.'].node.require.types);
    assert.equal(manifest.engines.node, '>=20');
    assert.ok(manifest.repository?.url && manifest.keywords?.length && manifest.license === 'MIT');
  });

  test('sideEffects lists exactly the entries that instantiate at import', () => {
    assert.deepEqual(
      [...manifest.sideEffects].sort(),
      ['./bun.js', './carried.js', './inline.cjs', './inline.js', './node-bundled.js', './node.cjs', './node.js', './unwasm.js', './workerd.js'],
    );
  });

  test('the tarball carries a README and the LICENSE', () => {
    assert.ok(consumer.packedFiles.includes('README.md') && consumer.packedFiles.includes('LICENSE'));
    assert.match(readFileSync(join(consumer.pkgDir, 'LICENSE'), 'utf8'), /^MIT License/);
    assert.match(readFileSync(join(consumer.pkgDir, 'README.md'), 'utf8'), /^# code-session-gate\n/);
  });

  test('the tarball ships exactly `files` (plus package.json)', () => {
    assert.deepEqual([...consumer.packedFiles].sort(), [...manifest.files, 'package.json'].sort());
  });

  test('no `any` in the shipped types', () => {
    for (const f of manifest.files.filter((f) => f.endsWith('.d.ts') || f.endsWith('.d.cts'))) {
      const code = readFileSync(join(consumer.pkgDir, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      assert.doesNotMatch(code, /\bany\b/, f);
    }
  });

  test('resolves by name: node entry, slim, the .wasm and the manifest', () => {
    assert.match(probe.resolved.main, /\/node_modules\/code-session-gate\/node\.js$/);
    assert.match(probe.resolved.slim, /\/node_modules\/code-session-gate\/slim\.js$/);
    assert.match(probe.resolved.wasm, /\/node_modules\/code-session-gate\/code_session_gate_bg\.wasm$/);
    assert.match(probe.resolved.manifest, /\/node_modules\/code-session-gate\/package\.json$/);
  });
});

describe('node entry (synchronous, by package name)', () => {
  test('toInjectedFileRef works right after import', () => {
    assert.deepEqual({ ...pkg.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0') }, EXPECTED_REF);
  });

  test('malformed input throws a CodeSessionGateError with code and path', () => {
    assert.throws(
      () => pkg.toInjectedFileRef({ name: 'a' }, 'e0'),
      (e) => {
        assert.ok(e instanceof Error);
        assert.equal(e.name, 'CodeSessionGateError');
        assert.equal(e.code, 'missing_field');
        assert.equal(e.path, 'file.id');
        return true;
      },
    );
    // A refusal is not a trap: the module keeps answering.
    assert.equal(pkg.toInjectedFileRef({ id: 'f2', name: 'b' }, 'e1').id, 'f2');
  });

  test('CODE_EXECUTION_TOOLS / CODE_ENV_KINDS are frozen arrays from the wasm', () => {
    assert.ok(Array.isArray(pkg.CODE_EXECUTION_TOOLS) && Object.isFrozen(pkg.CODE_EXECUTION_TOOLS));
    assert.ok(Array.isArray(pkg.CODE_ENV_KINDS) && Object.isFrozen(pkg.CODE_ENV_KINDS));
    assert.deepEqual([...pkg.CODE_EXECUTION_TOOLS], pkg.codeExecutionTools());
    assert.deepEqual([...pkg.CODE_ENV_KINDS], ['skill', 'agent', 'user']);
    assert.ok(pkg.CODE_EXECUTION_TOOLS.includes('execute_code'));
  });

  test('init() and initSync() are no-ops that hand out nothing (the raw exports stay guarded)', async () => {
    assert.equal(await pkg.default(), undefined);
    assert.equal(pkg.initSync(), undefined);
    assert.equal(pkg.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0').id, 'f1');
  });
});

describe('slim entry (host passes a WebAssembly.Module)', () => {
  const wasmPath = () => join(consumer.pkgDir, 'code_session_gate_bg.wasm');

  test('initSync({ module }) with a Module the test compiled', async () => {
    const out = await nodeIn(`
      import { readFileSync } from 'node:fs';
      import * as slim from '${PKG_NAME}/slim';
      const before = { tools: slim.CODE_EXECUTION_TOOLS === undefined };
      try { slim.toInjectedFileRef({ id: 'x', name: 'y' }, 'e'); before.call = 'returned'; }
      catch (e) { before.call = e.message; }
      const module = new WebAssembly.Module(readFileSync(${JSON.stringify(wasmPath())}));
      slim.initSync({ module });
      console.log(JSON.stringify({
        before,
        frozen: Object.isFrozen(slim.CODE_EXECUTION_TOOLS),
        tools: slim.CODE_EXECUTION_TOOLS,
        kinds: slim.CODE_ENV_KINDS,
        ref: slim.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
      }));
    `);
    assert.equal(out.before.tools, true);
    assert.match(out.before.call, /before the module was initialised/);
    assert.equal(out.frozen, true);
    assert.deepEqual(out.kinds, ['skill', 'agent', 'user']);
    assert.ok(out.tools.includes('execute_code'));
    assert.deepEqual(out.ref, EXPECTED_REF);
  });

  test('a Module of another realm, bytes, and the wrong thing: the loader takes the first two, refuses the third with a type', async () => {
    // A `vm` context has its own WebAssembly, whose Module fails `instanceof` here (as Next.js's
    // `.wasm?module` import does); a module that is not this package's is `not_wasm`, not a TypeError.
    const out = await nodeIn(`
      import { readFileSync } from 'node:fs';
      import vm from 'node:vm';
      import * as slim from '${PKG_NAME}/slim';
      const bytes = readFileSync(${JSON.stringify(wasmPath())});
      const seen = {};
      const attempt = (key, f) => { try { f(); seen[key] = 'ok'; } catch (e) { seen[key] = [e.name, e.code, e.path, e.message]; } };
      attempt('string', () => slim.initSync({ module: 'code_session_gate_bg.wasm' }));
      attempt('empty', () => slim.initSync({}));
      const other = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
      attempt('other', () => slim.initSync({ module: other }));
      const foreign = vm.runInNewContext('new WebAssembly.Module(bytes)', { bytes: new Uint8Array(bytes) });
      seen.foreignIsModule = foreign instanceof WebAssembly.Module;
      attempt('foreign', () => slim.initSync({ module: foreign }));
      const sandboxBytes = readFileSync(${JSON.stringify(wasmPath().replace('code_session_gate_bg', 'code_session_sandbox_bg'))});
      attempt('coreAsSandbox', () => slim.initSandboxSync({ module: bytes }));
      attempt('sandbox', () => slim.initSandboxSync({ module: sandboxBytes }));
      seen.stripped = slim.stripTrustedFields({ session_id: 'x' });
      seen.ref = slim.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0');
      console.log(JSON.stringify(seen));
    `);
    assert.deepEqual(out.string.slice(0, 3), ['CodeSessionGateError', 'invalid_type', 'module']);
    assert.match(out.string[3], /a WebAssembly\.Module or the bytes of the \.wasm, not string/);
    assert.deepEqual(out.empty.slice(0, 3), ['CodeSessionGateError', 'missing_field', 'module']);
    assert.deepEqual(out.other.slice(0, 2), ['CodeSessionGateError', 'not_wasm']);
    assert.match(out.other[3], /not this package's code_session_gate_bg\.wasm \(it has no memory, constants, rawgate_new/);
    assert.equal(out.foreignIsModule, false);
    assert.equal(out.foreign, 'ok');
    assert.deepEqual(out.coreAsSandbox.slice(0, 2), ['CodeSessionGateError', 'not_wasm']);
    assert.match(out.coreAsSandbox[3], /not this package's code_session_sandbox_bg\.wasm \(it has no buildSandboxRequest\)/);
    assert.equal(out.sandbox, 'ok');
    assert.deepEqual(out.stripped, { args: {}, dropped: ['session_id'] });
    assert.deepEqual(out.ref, EXPECTED_REF);
  });

  test('await init({ module_or_path: Module }); init() without a module is refused', async () => {
    const out = await nodeIn(`
      import { readFileSync } from 'node:fs';
      import init, * as slim from '${PKG_NAME}/slim';
      let refused = null;
      try { await init(); } catch (e) { refused = e.name === 'CodeSessionGateError' && e.code === 'missing_field' && e.path === 'options' && e.message; }
      const module = await WebAssembly.compile(readFileSync(${JSON.stringify(wasmPath())}));
      await init({ module_or_path: module });
      console.log(JSON.stringify({
        refused,
        kinds: slim.CODE_ENV_KINDS,
        ref: slim.toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
      }));
    `);
    assert.match(out.refused, /needs \{ module_or_path \}/);
    assert.deepEqual(out.kinds, ['skill', 'agent', 'user']);
    assert.deepEqual(out.ref, EXPECTED_REF);
  });

  test('a trap inside the instance poisons every later call (the real module, one export made to trap)', async () => {
    // The real module through the package's real loader and api.js, with its `toInjectedFileRef`
    // export wrapped to trap as the engine traps (a Rust panic would be \`unreachable\`): the first call
    // rethrows the trap and every later call, cached answers included, fails closed without entering.
    const out = await nodeIn(`
      import { readFileSync } from 'node:fs';
      const Native = WebAssembly.Instance;
      WebAssembly.Instance = class extends Native {
        constructor(module, imports) {
          super(module, imports);
          const exports = { ...super.exports };
          if (exports.toInjectedFileRef) {
            exports.toInjectedFileRef = () => { throw new WebAssembly.RuntimeError('unreachable'); };
          }
          Object.defineProperty(this, 'exports', { value: Object.freeze(exports) });
        }
      };
      const slim = await import('${PKG_NAME}/slim');
      slim.initSync({ module: new WebAssembly.Module(readFileSync(${JSON.stringify(wasmPath())})) });
      const seen = [];
      const attempt = (f) => { try { f(); seen.push({ ok: true }); }
        catch (e) { seen.push({ ctor: e.constructor.name, name: e.name, code: e.code, path: e.path, message: e.message }); } };
      attempt(() => slim.toInjectedFileRef({ id: 'f1', name: 'a' }, 'e0'));
      attempt(() => slim.toInjectedFileRef({ id: 'f1', name: 'a' }, 'e0'));
      attempt(() => slim.codeEnvKinds());
      attempt(() => new slim.Gate());
      console.log(JSON.stringify(seen));
    `);
    assert.equal(out[0].ctor, 'RuntimeError');
    assert.equal(out.length, 4);
    for (const later of out.slice(1)) {
      assert.equal(later.name, 'CodeSessionGateError');
      assert.equal(later.code, 'poisoned');
      assert.equal(later.path, '');
      assert.match(later.message, /trapped/);
    }
  });
});

describe('guard.js', () => {
  let createGuard;
  before(async () => {
    // The source module (the package bundles it into api.js).
    ({ createGuard } = await import(pathToFileURL(join(ROOT, 'packages', 'code-session-gate', 'guard.js')).href));
  });

  const assertPoisoned = (f, cause = WebAssembly.RuntimeError) =>
    assert.throws(f, (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.name, 'CodeSessionGateError');
      assert.equal(e.code, 'poisoned');
      assert.equal(e.path, '');
      assert.match(e.message, new RegExp(`trapped earlier \\(${cause.name}: `));
      assert.ok(e.cause instanceof cause);
      return true;
    });

  /** A guarded call of `what`, as the package makes one: checked, then run. */
  const guarded = (guard, what, call) => (...args) => {
    guard.check(what);
    return guard.run(() => call(...args));
  };

  test('after a trap, that call rethrows it and every later call throws "poisoned"', () => {
    const guard = createGuard();
    let entered = 0;
    const fake = guarded(guard, 'fake', (x) => {
      entered += 1;
      if (x === 'trap') throw new WebAssembly.RuntimeError('unreachable');
      return x;
    });
    const other = guarded(guard, 'other', () => {
      entered += 1;
      return 'other';
    });
    assert.equal(fake('ok'), 'ok');
    assert.equal(other(), 'other');
    assert.equal(guard.live.open, true);
    const trap = new WebAssembly.RuntimeError('unreachable');
    const trapping = guarded(guard, 'trapping', () => {
      throw trap;
    });
    assert.throws(() => trapping(), (e) => e === trap);
    assert.equal(guard.poisoned, true);
    assert.equal(guard.live.open, false);
    const before = entered;
    for (let i = 0; i < 3; i++) {
      assertPoisoned(() => fake('ok'));
      assertPoisoned(() => other());
      assertPoisoned(() => trapping());
    }
    assert.equal(entered, before, 'no call entered the (fake) wasm after the trap');
    guard.reset();
    assert.equal(guard.poisoned, false);
    assert.equal(fake('again'), 'again');
  });

  test('ordinary errors (refusals) do not poison', () => {
    const guard = createGuard();
    const refuse = guarded(guard, 'refuse', () => {
      const e = new Error('file.id: is required');
      e.name = 'CodeSessionGateError';
      e.code = 'missing_field';
      throw e;
    });
    assert.throws(() => refuse(), { code: 'missing_field' });
    assert.throws(() => refuse(), { code: 'missing_field' });
    assert.equal(guard.poisoned, false);
  });

  test('a stack overflow poisons too', () => {
    const guard = createGuard();
    const deep = guarded(guard, 'deep', () => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    assert.throws(() => deep(), RangeError);
    assertPoisoned(() => deep(), RangeError);
  });

  test('calls before initialisation are refused without entering', () => {
    const state = { ready: false, open: false };
    let entered = 0;
    const guard = createGuard(state);
    const f = guarded(guard, 'f', () => ++entered);
    assert.throws(() => f(), (e) => {
      assert.match(e.message, /f\(\) was called before the module was initialised/);
      assert.equal(e.name, 'CodeSessionGateError');
      assert.equal(e.code, 'not_initialized');
      return true;
    });
    assert.equal(entered, 0);
    state.ready = true;
    assert.equal(f(), 1);
  });
});

describe('error codes', () => {
  test('the CodeSessionGateErrorCode union lists exactly the codes the module and the JavaScript layer throw', () => {
    const rust = readFileSync(join(ROOT, 'crates', 'rules', 'src', 'error.rs'), 'utf8');
    const codes = rust.slice(rust.indexOf('error_codes! {'));
    const fromRust = [...codes.matchAll(/^\s*[A-Z]\w* = "([a-z_]+)",$/gm)].map((m) => m[1]);
    assert.ok(fromRust.length > 20, 'read the Rust codes');
    const js = readdirSync(join(ROOT, 'packages', 'code-session-gate'), { recursive: true })
      .filter((f) => String(f).endsWith('.js'))
      .map((f) => readFileSync(join(ROOT, 'packages', 'code-session-gate', String(f)), 'utf8'))
      .join('\n');
    const fromJs = [...js.matchAll(/gateError\(\s*'([a-z_]+)'/g)].map((m) => m[1]);
    const dts = readFileSync(join(PKG_DIR, 'ops.d.ts'), 'utf8');
    const block = /export type CodeSessionGateErrorCode =([\s\S]*?);/.exec(dts)?.[1] ?? '';
    const typed = [...block.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(typed)].sort(), [...new Set([...fromRust, ...fromJs])].sort());
  });
});
