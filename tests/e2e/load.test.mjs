// The worker under load: 24 users with 3 conversations each, 12 requests in flight, with and without
// sandbox faults, all on loopback. Nothing acknowledged is lost, no conversation or partition sees
// another's files. Reported (not asserted): latency and throughput through workerd (the worker's
// README quotes them), and the gate's own share of a request —
// measured in a Node host running the same batch steps, since workerd's clock does not advance during
// pure computation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { ensureWorkerDeps } from '../../worker/serve.mjs';
import { DECLARED } from '../../worker/scenario.js';
import { USER, call, fault, partitionNames, sandbox, snapshotText, worker } from './harness.mjs';

/** The load: 24 users with 3 conversations each, 3 rounds each, 12 requests in flight. */
const USERS = 24;
const CONVERSATIONS_PER_USER = 3;
const ROUNDS = 3;
const CONCURRENCY = 12;
/** For the gate-share test below: conversations and rounds in a Node host. */
const CONVERSATIONS = 12;

let sb;
let w;
/** worker/src/batch.js, loaded once the worker's dependency (the package) is installed. */
let runBatch;
before(async () => {
  ensureWorkerDeps();
  ({ runBatch } = await import('../../worker/src/batch.js'));
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

/**
 * One round of load: every user's conversations write a file per round (every third conversation
 * through a second agent's partition on odd rounds), in an order that interleaves the users. Answers
 * each request's outcome and latency, and the wall time of the whole.
 * @param {string} tag names this round's conversations apart from another round's
 */
async function load(tag) {
  const jobs = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let c = 0; c < CONVERSATIONS_PER_USER; c++) {
      for (let u = 0; u < USERS; u++) {
        const user = `load-user-${u}`;
        const conversation = `${tag}-${c}`;
        const agent = c === 0 && r % 2 === 1 ? { codeSessionKey: 'agent-b' } : undefined;
        jobs.push(async () => {
          const started = performance.now();
          const name = `${tag}-u${u}-c${c}-r${r}.txt`;
          const answer = await call(w, conversation, [{ id: `u${u}c${c}r${r}`, name: 'create_file', args: { file_path: `/mnt/data/${name}`, content: `${u}/${c}/${r}\n` } }], agent, user);
          return { user, conversation, name, agent, ok: answer.results[0].status === 'success', error: answer.results[0].error, ms: performance.now() - started };
        });
      }
    }
  }
  const started = performance.now();
  const done = await bounded(jobs, CONCURRENCY);
  return { done, wallMs: performance.now() - started };
}

/** Every conversation's partitions hold exactly the files of its users' acknowledged requests. */
async function checkNothingLostNothingShared(done) {
  const conversations = new Set(done.map((d) => `${d.user}\u0000${d.conversation}`));
  for (const key of conversations) {
    const [user, conversation] = key.split('\u0000');
    const snap = await snapshotText(w, conversation, user);
    for (const partition of ['execute_code', 'agent-b']) {
      const expected = done
        .filter((d) => d.user === user && d.conversation === conversation && d.ok && (d.agent?.codeSessionKey ?? 'execute_code') === partition)
        .map((d) => d.name)
        .sort();
      assert.deepEqual(partitionNames(snap, partition), expected, `${user} ${conversation} ${partition}`);
    }
  }
}

const report = (what, { done, wallMs }) => {
  const ms = done.map((d) => d.ms);
  console.log(
    `${what}: ${done.length} requests (${USERS} users x ${CONVERSATIONS_PER_USER} conversations x ${ROUNDS} rounds) through workerd, ${CONCURRENCY} at a time: ` +
      `p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, ${(done.length / (wallMs / 1000)).toFixed(1)} requests/s`,
  );
};

test('24 users x 3 conversations at once, without faults: nothing lost, nothing shared', async () => {
  const result = await load('calm');
  assert.deepEqual(result.done.filter((d) => !d.ok).map((d) => d.error), [], 'every call succeeded');
  await checkNothingLostNothingShared(result.done);
  report('without faults', result);
});

test('24 users x 3 conversations at once, with faults: only the faulted calls fail, nothing lost, nothing shared', async () => {
  // Faults land on whichever requests come next: 500s, dropped connections, 429s.
  await fault(sb, { dialect: 'codeapi', path: 'exec', times: 3, fault: { kind: 'status', status: 500 } });
  await fault(sb, { dialect: 'codeapi', path: 'exec', times: 2, fault: { kind: 'drop' } });
  await fault(sb, { dialect: 'codeapi', path: 'exec', times: 2, fault: { kind: 'status', status: 429, retryAfter: 1 } });
  const result = await load('faulty');
  const failed = result.done.filter((d) => !d.ok);
  assert.equal(failed.length, 7, `the seven injected faults fail their calls, and only those: ${JSON.stringify(failed.map((f) => f.error?.code))}`);
  assert.ok(failed.every((f) => ['unavailable', 'rate_limited'].includes(f.error?.code)));
  await checkNothingLostNothingShared(result.done);
  report('with 7 sandbox faults', result);
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
