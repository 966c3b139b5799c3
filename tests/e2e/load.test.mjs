// The worker under load: many conversations, bounded concurrency, sandbox faults injected along the
// way, all on loopback. Nothing acknowledged is lost, no conversation or partition sees another's files.
// Reported (not asserted): end-to-end latency through workerd, and the gate's own share of a request —
// measured in a Node host running the same batch steps, since workerd's clock does not advance during
// pure computation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { ensureWorkerDeps } from '../../examples/worker/serve.mjs';
import { DECLARED } from '../../examples/worker/scenario.js';
import { USER, call, fault, partitionNames, sandbox, snapshotText, worker } from './harness.mjs';

const CONVERSATIONS = 12;
const ROUNDS = 4;
const CONCURRENCY = 6;

let sb;
let w;
/** examples/worker/src/batch.js, loaded once the worker's dependency (the package) is installed. */
let runBatch;
before(async () => {
  ensureWorkerDeps();
  ({ runBatch } = await import('../../examples/worker/src/batch.js'));
  sb = await sandbox();
  w = await worker(sb, 'codeapi', DECLARED);
});
after(async () => {
  await w?.stop();
  await sb?.close();
});

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** Runs `jobs` (async functions) with at most `limit` in flight. */
async function bounded(jobs, limit) {
  const out = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

test('many conversations at once, with faults: nothing lost, nothing shared', async () => {
  // Every third conversation has a second agent with its own partition.
  const jobs = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    for (let r = 0; r < ROUNDS; r++) {
      const agent = c % 3 === 0 && r % 2 === 1 ? { codeSessionKey: 'agent-b' } : undefined;
      jobs.push(async () => {
        const started = performance.now();
        const name = `conv${c}-round${r}.txt`;
        const answer = await call(w, `load-${c}`, [{ id: `c${c}r${r}`, name: 'create_file', args: { file_path: `/mnt/data/${name}`, content: `${c}/${r}\n` } }], agent);
        return { c, r, name, agent, ok: answer.results[0].status === 'success', error: answer.results[0].error, ms: performance.now() - started };
      });
    }
  }
  // Faults land on whichever requests come next: 500s, a dropped connection, a 429.
  await fault(sb, { dialect: 'codeapi', path: 'exec', times: 3, fault: { kind: 'status', status: 500 } });
  await fault(sb, { dialect: 'codeapi', path: 'exec', times: 2, fault: { kind: 'drop' } });
  await fault(sb, { dialect: 'codeapi', path: 'exec', times: 2, fault: { kind: 'status', status: 429, retryAfter: 1 } });
  const done = await bounded(jobs, CONCURRENCY);

  const failed = done.filter((d) => !d.ok);
  assert.equal(failed.length, 7, `the seven injected faults fail their calls, and only those: ${JSON.stringify(failed.map((f) => f.error?.code))}`);
  assert.ok(failed.every((f) => ['unavailable', 'rate_limited'].includes(f.error?.code)));
  for (let c = 0; c < CONVERSATIONS; c++) {
    const snap = await snapshotText(w, `load-${c}`);
    for (const key of ['execute_code', 'agent-b']) {
      const expected = done
        .filter((d) => d.c === c && d.ok && (d.agent?.codeSessionKey ?? 'execute_code') === key)
        .map((d) => d.name)
        .sort();
      assert.deepEqual(partitionNames(snap, key), expected, `conversation ${c}, partition ${key}`);
    }
  }
  const ms = done.map((d) => d.ms);
  console.log(
    `${done.length} requests through workerd, ${CONCURRENCY} at a time: p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms (the sandbox's process start dominates)`,
  );
});

test("the gate's own share of a request, in a Node host running the same steps", async () => {
  // Every gate call of runBatch timed: the batch planning and fold, the request building, the answer reading.
  let spent = 0;
  const timed = (fn) =>
    function (...args) {
      const t = performance.now();
      try {
        return fn.apply(this, args);
      } finally {
        spent += performance.now() - t;
      }
    };
  const settings = { url: sb.codeapiUrl, dialect: 'codeapi', credential: USER, userId: USER, timeoutMs: 20000, deadlineMs: 25000 };
  const shares = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    const gate = new pkg.Gate(DECLARED);
    gate.beginEventBatch = timed(gate.beginEventBatch);
    gate.completeEventBatch = timed(gate.completeEventBatch);
    for (let r = 0; r < ROUNDS; r++) {
      spent = 0;
      const { results } = await runBatch(
        gate,
        settings,
        [{ id: `h${c}${r}`, name: r % 2 ? 'bash_tool' : 'create_file', args: r % 2 ? { command: 'ls /mnt/data/' } : { file_path: `/mnt/data/h${r}.txt`, content: 'x' } }],
        { threadId: `host-${c}` },
      );
      assert.equal(results[0].status, 'success', JSON.stringify(results[0].error));
      shares.push(spent);
    }
    gate.free();
  }
  console.log(
    `gate share per request (beginEventBatch + completeEventBatch, as the worker calls them): p50 ${(percentile(shares, 50) * 1000).toFixed(0)} µs, p99 ${(percentile(shares, 99) * 1000).toFixed(0)} µs`,
  );
});
