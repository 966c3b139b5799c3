// Scale: 10^5 files and 10^5 results through every merge, fold, deletion and seeding path, and 1,000
// calls over 10,000 files through an event batch, through the wasm package. The bounds follow from the
// complexity: each path is linear (or n log n) in what it is handed, about a microsecond or two per file
// here; the limits below are ten times the figures measured on this 2-core machine (printed with each
// test), so a quadratic path — minutes at this size — fails, and a slow machine does not. Wasm linear
// memory must stay under 1 GiB all along (the quadratic paths reached the 4 GiB limit and trapped).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import * as pkg from '../../pkg/node.js';

const { Gate } = pkg;
const N = 100_000;
const MEMORY_BOUND = 1 << 30;

const files = (prefix, storage = 's') =>
  Array.from({ length: N }, (_, i) => ({ id: `${prefix}${i}`, name: `f${i}.txt`, storage_session_id: storage }));

/** Runs `fn`, prints its time, and checks it against `boundMs` and the memory bound. */
function timed(label, boundMs, fn) {
  const started = performance.now();
  const out = fn();
  const ms = performance.now() - started;
  console.log(`${label}: ${ms.toFixed(0)} ms (bound ${boundMs} ms), wasm memory ${(pkg.memoryBytes() / 2 ** 20).toFixed(0)} MiB`);
  assert.ok(ms < boundMs, `${label} took ${ms.toFixed(0)} ms (bound ${boundMs} ms)`);
  assert.ok(pkg.memoryBytes() < MEMORY_BOUND, `wasm memory ${pkg.memoryBytes()} bytes`);
  return out;
}

for (const profile of ['3.6', '3.9']) {
  test(`${profile}: 10^5 files through merge, deletion, seeding and context`, () => {
    const gate = new Gate({ profile, sessions: [['execute_code', { session_id: 's', files: files('a'), lastUpdated: 1 }]] });
    timed(`${profile} fold of 10^5 files over 10^5 of the same names`, 8000, () =>
      gate.updateSession('execute_code', { session_id: 's2', files: files('b', 's2') }, { now: 2 }),
    );
    assert.equal(gate.session('execute_code').files.length, N);
    assert.ok(gate.session('execute_code').files.every((f, i) => f.id === `b${i}`), 'every name superseded by the new file');
    if (profile === '3.9') {
      const names = files('b').map((f) => f.name);
      const b = gate.beginEventBatch([{ id: 'd', name: 'bash_tool', args: {} }], {});
      timed(`${profile} deleted_files naming 10^5 files`, 5000, () =>
        gate.completeEventBatch(b.id, {
          requests: b.dispatch,
          results: [{ toolCallId: 'd', status: 'success', artifact: { session_id: 's3', deleted_files: names } }],
          now: 3,
        }),
      );
      assert.equal(gate.session('execute_code').files.length, 0, 'every file the request saw is deleted');
    }
    timed(`${profile} seeding 10^5 files into the partition`, 5000, () => gate.seedRun([['execute_code', { session_id: 'q', files: files('c', 'q') }]]));
    const count = timed(`${profile} context of the seeded partition`, 5000, () => gate.contextForCall('event', 'bash_tool').codeSessionContext.files.length);
    assert.equal(count, profile === '3.9' ? N : 2 * N);
    gate.free();
  });

  test(`${profile}: 10^5 results folded in one batch, direct and event`, () => {
    const gate = new Gate({ profile, sessions: [['execute_code', { session_id: 's', files: [], lastUpdated: 1 }]] });
    const results = Array.from({ length: N }, (_, i) => ({
      id: `c${i}`,
      name: 'bash_tool',
      status: 'success',
      artifact: { session_id: `e${i}`, files: [{ id: `x${i}`, name: `n${i}` }] },
    }));
    timed(`${profile} event fold of 10^5 results`, 8000, () => gate.foldResults('event', results, { now: 2 }));
    assert.equal(gate.session('execute_code').files.length, N);
    timed(`${profile} direct fold of 10^5 results (the same names again)`, 8000, () => gate.foldResults('direct', results, { now: 3 }));
    assert.equal(gate.session('execute_code').files.length, N);
    gate.free();
  });

  test(`${profile}: 1,000 calls over 10,000 files in one event batch`, () => {
    const stored = files('a').slice(0, 10_000);
    const gate = new Gate({ profile, sessions: [['execute_code', { session_id: 's', files: stored, lastUpdated: 1 }]] });
    const calls = Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, name: 'bash_tool', args: {} }));
    const batch = timed(`${profile} beginEventBatch of 1,000 calls`, 3000, () => gate.beginEventBatch(calls, {}));
    assert.equal(batch.dispatch.length, 1000);
    assert.ok(batch.dispatch.every((r) => r.codeSessionContext.files.length === 10_000));
    const results = batch.dispatch.map((r, i) => ({
      toolCallId: r.id,
      status: 'success',
      artifact: { session_id: `e${i}`, files: [...r.codeSessionContext.files.slice(0, 5).map((f) => ({ ...f, inherited: true })), { id: `n${i}`, name: `new${i}` }] },
    }));
    timed(`${profile} completeEventBatch of 1,000 results`, 5000, () =>
      gate.completeEventBatch(batch.id, { requests: batch.dispatch, results, now: 2 }),
    );
    assert.equal(gate.session('execute_code').files.length, 11_000);
    gate.free();
  });

  test(`${profile}: a context after a fold that moved every one of 10^5 files to a new exec session`, () => {
    // Storage-less files narrow against the partition's exec session: the fold changes every ref, and the
    // context is written as a diff against the list the caller holds from before (nothing in common).
    const stored = Array.from({ length: N }, (_, i) => ({ id: `a${i}`, name: `f${i}.txt` }));
    const gate = new Gate({ profile, sessions: [['execute_code', { session_id: 's1', files: stored, lastUpdated: 1 }]] });
    const before = gate.contextForCall('event', 'bash_tool').codeSessionContext.files;
    gate.updateSession('execute_code', { session_id: 's2', files: stored }, { now: 2 });
    const after = timed(`${profile} context after moving 10^5 files`, 3000, () => gate.contextForCall('event', 'bash_tool').codeSessionContext.files);
    assert.equal(after.length, N);
    assert.equal(before[7].storage_session_id, 's1');
    assert.deepEqual(after[7], { id: 'a7', resource_id: 'a7', name: 'f7.txt', storage_session_id: 's2', kind: 'user' });
    gate.free();
  });
}

test('2 × 10^5 results folded in one call, in a fresh process: linear, however much memory the call grows', () => {
  // A fresh process, because what this guards is memory growth: when the module grew its memory a page
  // at a time, each growth cost the engine a full GC over the host's 2 × 10^5 result objects (129 s
  // here; 10^4 results 0.15 s). It grows geometrically now (crates/wasm/boundary/allocator.rs): about 3 s.
  const script = `
    import { Gate } from ${JSON.stringify(new URL('../../pkg/node.js', import.meta.url).href)};
    const n = 200000;
    const gate = new Gate({ profile: '3.9' });
    const results = Array.from({ length: n }, (_, i) => ({ tool_call_id: 'c' + i, name: 'execute_code', status: 'success',
      artifact: { session_id: 's', files: [{ id: 'f' + i, name: 'n' + i + '.txt', storage_session_id: 's' }] } }));
    const t = performance.now();
    gate.foldResults('event', results, { now: 1 });
    console.log(JSON.stringify({ ms: performance.now() - t, files: gate.session('execute_code').files.length }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 }));
  console.log(`event fold of 2 × 10^5 results in a fresh process: ${out.ms.toFixed(0)} ms (bound 30000 ms)`);
  assert.equal(out.files, 200_000);
  assert.ok(out.ms < 30_000, `${out.ms.toFixed(0)} ms`);
});
