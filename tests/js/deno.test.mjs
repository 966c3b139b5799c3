// Deno smoke test: the npm `deno` binary imports the installed package by name (Deno resolves it from
// the consumer's package.json + node_modules, with its `deno` condition), awaits init(), and prints
// what toInjectedFileRef returns. DENO_DIR lives in the temp folder; reads are limited to it and the
// network is denied, so nothing is fetched.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, EXPECTED_REF, PKG_NAME, lastJson, makeConsumer, run } from './consumer.mjs';

let consumer;
before(() => {
  consumer = makeConsumer();
});
after(() => consumer?.cleanup());

test('deno: import by name, await init(), toInjectedFileRef', async () => {
  const deno = join(BIN, 'deno');
  assert.ok(existsSync(deno), `${deno} missing: run scripts/setup.sh`);
  const script = join(consumer.dir, 'deno-smoke.mjs');
  writeFileSync(
    script,
    `
    import init, { toInjectedFileRef, CODE_EXECUTION_TOOLS, CODE_ENV_KINDS } from '${PKG_NAME}';
    const before = CODE_EXECUTION_TOOLS === undefined;
    await init();
    let err = null;
    try { toInjectedFileRef({ name: 'a' }, 'e0'); } catch (e) { err = { name: e.name, code: e.code, path: e.path }; }
    console.log(JSON.stringify({
      before,
      entry: import.meta.resolve('${PKG_NAME}'),
      frozen: Object.isFrozen(CODE_EXECUTION_TOOLS),
      kinds: CODE_ENV_KINDS,
      ref: toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0'),
      err,
    }));
    `,
  );
  const r = await run(deno, ['run', `--allow-read=${consumer.dir}`, '--deny-net', '--no-prompt', script], {
    cwd: consumer.dir,
    env: { ...process.env, DENO_DIR: join(consumer.dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 0, `deno failed:\n${r.stderr}${r.stdout}`);
  const out = lastJson(r.stdout);
  assert.match(out.entry, /\/node_modules\/code-session-gate\/browser\.js$/, 'the `deno` condition picks browser.js');
  assert.equal(out.before, true, 'constants are undefined until init() resolves');
  assert.equal(out.frozen, true);
  assert.deepEqual(out.kinds, ['skill', 'agent', 'user']);
  assert.deepEqual(out.ref, EXPECTED_REF);
  assert.deepEqual(out.err, { name: 'CodeSessionGateError', code: 'missing_field', path: 'file.id' });
});
