// The seed scenario from plain host processes against the same sandbox: Node (the package ready at
// import) and Deno (`await init()` loading the .wasm), each importing the package its own way, through
// worker/host.mjs. And the worker bundled by wrangler exactly as `wrangler deploy` would.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureWorkerDeps } from '../../worker/serve.mjs';
import { BIN, ROOT } from '../js/consumer.mjs';
import { DIALECTS, LCI_KEY, USER, baseOf, sandbox, tempDir } from './harness.mjs';

const WORKER = resolve(ROOT, 'worker');

/** Runs a command; resolves with its exit code and output. */
function run(cmd, args, options = {}) {
  return new Promise((done) => {
    execFile(cmd, args, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024, ...options }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let sb;
before(async () => {
  ensureWorkerDeps();
  sb = await sandbox();
});
after(async () => {
  await sb?.close();
});

const credential = (dialect) => (dialect === 'codeapi' ? USER : LCI_KEY);

for (const dialect of DIALECTS) {
  test(`Node host: the seed scenario against ${dialect}`, async () => {
    const r = await run(process.execPath, [join(WORKER, 'host.mjs'), baseOf(sb, dialect), dialect, credential(dialect)]);
    assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
    const out = JSON.parse(r.stdout);
    assert.equal(out.runtime, 'node');
    assert.deepEqual(out.judged, { created: true, listed: true, edited: true, ranEdited: true });
  });

  test(`Deno host: the seed scenario against ${dialect}`, async () => {
    const deno = join(BIN, 'deno');
    assert.ok(existsSync(deno), `${deno} missing: run scripts/setup.sh`);
    const cache = tempDir('csg-deno-');
    try {
      const r = await run(
        deno,
        ['run', '--no-prompt', `--allow-read=${ROOT}`, '--allow-net=127.0.0.1', join(WORKER, 'host.mjs'), baseOf(sb, dialect), dialect, credential(dialect)],
        { cwd: WORKER, env: { ...process.env, DENO_DIR: cache.dir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } },
      );
      assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
      const out = JSON.parse(r.stdout);
      assert.equal(out.runtime, 'deno');
      assert.deepEqual(out.judged, { created: true, listed: true, edited: true, ranEdited: true });
    } finally {
      cache.cleanup();
    }
  });
}

test('wrangler deploy --dry-run (the worker\'s own pinned wrangler) bundles the worker with the .wasm as a module', async () => {
  const out = tempDir('csg-wrangler-');
  try {
    const r = await run(join(WORKER, 'node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', out.dir], {
      cwd: WORKER,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1', WRANGLER_LOG_PATH: join(out.dir, 'logs') },
    });
    assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
    const files = readdirSync(out.dir);
    const wasm = files.find((f) => f.endsWith('.wasm'));
    assert.ok(wasm, `a .wasm module in the bundle (${files})`);
    const bundle = readFileSync(join(out.dir, 'index.js'), 'utf8');
    assert.ok(bundle.includes(wasm), 'the bundle imports the .wasm module by its name');
    assert.match(`${r.stdout}${r.stderr}`, /env\.CONVERSATIONS \(Conversation\)\s+Durable Object/);
    assert.match(`${r.stdout}${r.stderr}`, /--dry-run: exiting now/);
  } finally {
    out.cleanup();
  }
});
