// workerd smoke test: a worker whose main module imports the package by name, resolved (as wrangler
// would, with the `workerd` condition) to the package's workerd entry, and the `.wasm` given to it as a
// compiled wasm module. The modules are listed explicitly in the workerd config (no bundler, no
// wrangler). Served on 127.0.0.1 on a free port, fetched, then stopped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, reachable } from '../../worker/serve.mjs';
import { BIN, EXPECTED_REF, PKG_NAME, makeConsumer } from './consumer.mjs';

let consumer;
let workerd;
before(() => {
  consumer = makeConsumer();
});
after(() => {
  if (workerd && workerd.exitCode === null) workerd.kill('SIGKILL');
  consumer?.cleanup();
});

test('workerd: the workerd entry with the .wasm as a compiled module answers toInjectedFileRef', async () => {
  const bin = join(BIN, 'workerd');
  assert.ok(existsSync(bin), `${bin} missing: run scripts/setup.sh`);
  const manifest = JSON.parse(readFileSync(join(consumer.pkgDir, 'package.json'), 'utf8'));
  const entry = manifest.exports['.'].workerd.default.replace(/^\.\//, '');
  const files = reachable(consumer.pkgDir, entry);
  assert.ok(files.some((f) => f.endsWith('.wasm')), `the workerd entry imports the .wasm (${files})`);

  writeFileSync(
    join(consumer.dir, 'worker.js'),
    `
    import { toInjectedFileRef, CODE_EXECUTION_TOOLS, CODE_ENV_KINDS } from '${PKG_NAME}';
    export default {
      async fetch() {
        let err = null;
        try { toInjectedFileRef({ name: 'a' }, 'e0'); } catch (e) { err = { name: e.name, code: e.code, path: e.path }; }
        return Response.json({
          frozen: Object.isFrozen(CODE_EXECUTION_TOOLS),
          kinds: CODE_ENV_KINDS,
          ref: toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
          err,
        });
      },
    };
    `,
  );
  const rel = (f) => `node_modules/${PKG_NAME}/${f}`;
  const modules = [
    `(name = "worker.js", esModule = embed "worker.js")`,
    // The bare specifier names the entry; its relative imports resolve beside it (the bundle root).
    `(name = "${PKG_NAME}", esModule = embed "${rel(entry)}")`,
    ...files
      .filter((f) => f !== entry)
      .map((f) => (f.endsWith('.wasm') ? `(name = "${f}", wasm = embed "${rel(f)}")` : `(name = "${f}", esModule = embed "${rel(f)}")`)),
  ];
  const port = await freePort();
  writeFileSync(
    join(consumer.dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    ${modules.join(',\n    ')}
  ],
  compatibilityDate = "2025-01-01",
);
`,
  );

  let log = '';
  workerd = spawn(bin, ['serve', 'config.capnp'], { cwd: consumer.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  workerd.stdout.on('data', (d) => (log += d));
  workerd.stderr.on('data', (d) => (log += d));

  let res;
  for (let i = 0; i < 100 && !res; i++) {
    if (workerd.exitCode !== null) assert.fail(`workerd exited (${workerd.exitCode}):\n${log}`);
    try {
      res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) });
    } catch {
      await sleep(100);
    }
  }
  assert.ok(res, `workerd did not answer on port ${port}:\n${log}`);
  const body = await res.text();
  assert.equal(res.status, 200, `${body}\n${log}`);
  const out = JSON.parse(body);
  assert.equal(out.frozen, true);
  assert.deepEqual(out.kinds, ['skill', 'agent', 'user']);
  assert.deepEqual(out.ref, EXPECTED_REF);
  assert.deepEqual(out.err, { name: 'CodeSessionGateError', code: 'missing_field', path: 'file.id' });

  workerd.kill('SIGTERM');
  await new Promise((r) => (workerd.exitCode !== null ? r() : workerd.once('exit', r)));
});
