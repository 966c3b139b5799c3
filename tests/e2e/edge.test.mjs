// End to end: the worker (worker) running in workerd, forwarding an LLM's tool calls to the local
// sandbox (examples/sandbox) in both dialects. Each test is one of the edge-middleware issue's scenarios.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DECLARED, SEED_STEPS, UNDECLARED, judgeSeed } from '../../worker/scenario.js';
import {
  DEADLINE_MS,
  DIALECTS,
  USER,
  call,
  execRequests,
  fault,
  one,
  partitionNames,
  prime,
  sandbox,
  snapshotText,
  tempDir,
  upload,
  worker,
} from './harness.mjs';

let sb;
before(async () => {
  sb = await sandbox();
});
after(async () => {
  await sb?.close();
});

/** Runs the seed scenario on `conversation`, one request per step. */
async function seed(w, conversation) {
  const outcomes = [];
  for (const step of SEED_STEPS) {
    const answer = await call(w, conversation, [step]);
    outcomes.push({ ...answer.results[0], answer });
  }
  return outcomes;
}

for (const dialect of DIALECTS) {
  describe(`edge worker in workerd, ${dialect}`, () => {
    let declared;
    let undeclared;
    before(async () => {
      declared = await worker(sb, dialect, DECLARED);
      undeclared = await worker(sb, dialect, UNDECLARED);
    });
    after(async () => {
      await declared?.stop();
      await undeclared?.stop();
    });

    test('1. create_file, then bash_tool lists it; edit_file, then python3 runs the edited file', async () => {
      const outcomes = await seed(declared, 'seed');
      assert.deepEqual(judgeSeed(outcomes), { created: true, listed: true, edited: true, ranEdited: true }, JSON.stringify(outcomes, null, 1));
      const [create, ls] = outcomes;
      assert.equal(create.verdict.eventFold, true, 'a declared create_file moves the session on');
      assert.equal(ls.sent.files, 1, 'the bash_tool call was sent one file');
      assert.ok(ls.answer.sent.files.some((f) => f.name === 'mandelbrot.py'), 'the gate sent the file to the bash_tool call');
      assert.deepEqual(partitionNames(await snapshotText(declared, 'seed')), ['mandelbrot.py']);
    });

    test('2. a GATE_CONFIG that leaves the worker\'s own tools out cannot bring the original failure back', async () => {
      // The worker serves create_file, edit_file and read_file itself: they are session tools whatever
      // GATE_CONFIG says (without them, create_file's file would be missing from the next bash_tool call:
      // the gate alone, host.mjs and the package's tests show that failure).
      const outcomes = await seed(undeclared, 'seed');
      assert.deepEqual(judgeSeed(outcomes), { created: true, listed: true, edited: true, ranEdited: true }, JSON.stringify(outcomes, null, 1));
      assert.equal(outcomes[0].verdict.eventFold, true, 'create_file moves the session on');
      assert.equal(outcomes[1].sent.files, 1);
      const config = JSON.parse(await snapshotText(undeclared, 'seed')).config;
      assert.deepEqual(config.codeSessionToolNames, ['create_file', 'edit_file', 'read_file']);
    });

    test('3. the session survives requests and a restart of workerd', async () => {
      const state = tempDir('csg-e2e-state-');
      try {
        let w = await worker(sb, dialect, DECLARED, state.dir);
        await one(w, 'durable', 'create_file', { file_path: '/mnt/data/notes.txt', content: 'kept\n' });
        const before = await snapshotText(w, 'durable');
        assert.deepEqual(partitionNames(before), ['notes.txt']);
        await w.stop();
        w = await worker(sb, dialect, DECLARED, state.dir);
        try {
          assert.equal(await snapshotText(w, 'durable'), before, 'the restarted worker loads the same snapshot');
          const cat = await one(w, 'durable', 'bash_tool', { command: 'cat /mnt/data/notes.txt' });
          assert.equal(cat.status, 'success');
          assert.equal(cat.output.stdout, 'kept\n');
        } finally {
          await w.stop();
        }
      } finally {
        state.cleanup();
      }
    });

    test('4a. two partitions and two conversations never see each other\'s files', async () => {
      const a = { codeSessionKey: 'agent-a' };
      const b = { codeSessionKey: 'agent-b' };
      await one(declared, 'parts', 'create_file', { file_path: '/mnt/data/secret-a.txt', content: 'a\n' }, a);
      const lsA = await one(declared, 'parts', 'bash_tool', { command: 'ls /mnt/data/' }, a);
      const lsB = await one(declared, 'parts', 'bash_tool', { command: 'ls /mnt/data/' }, b);
      const lsOther = await one(declared, 'parts-other', 'bash_tool', { command: 'ls /mnt/data/' }, a);
      assert.match(lsA.output.stdout, /secret-a\.txt/);
      assert.doesNotMatch(lsB.output.stdout, /secret-a\.txt/);
      assert.deepEqual(lsB.answer.sent.files, []);
      assert.doesNotMatch(lsOther.output.stdout, /secret-a\.txt/);
      assert.deepEqual(lsOther.answer.sent.files, []);
      const snap = await snapshotText(declared, 'parts');
      assert.deepEqual(partitionNames(snap, 'agent-a'), ['secret-a.txt']);
      assert.deepEqual(partitionNames(snap, 'agent-b'), []);
    });

    test('4b. concurrent requests on one conversation are serialised, nothing lost', async () => {
      const n = 6;
      const answers = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          one(declared, 'busy', 'create_file', { file_path: `/mnt/data/f${i}.txt`, content: `${i}\n` }),
        ),
      );
      assert.ok(answers.every((a) => a.status === 'success'));
      // One at a time: each request was built from the session the previous one left (0, 1, … files sent).
      const sent = answers.map((a) => a.sent.files).sort((x, y) => x - y);
      assert.deepEqual(sent, Array.from({ length: n }, (_, i) => i));
      assert.deepEqual(partitionNames(await snapshotText(declared, 'busy')), Array.from({ length: n }, (_, i) => `f${i}.txt`).sort());
    });

    test('5. a skill file and an inherited echo keep their identity across calls', async () => {
      const fields = dialect === 'codeapi' ? { kind: 'skill', id: 'skill_mandel', version: 3 } : { kind: 'skill', entity_id: 'skill_mandel' };
      const up = await upload(sb, dialect, 'SKILL.md', '# Mandelbrot skill\n', fields);
      const fileId = up.files[0].fileId;
      const skillRef = { id: fileId, resource_id: 'skill_mandel', name: 'SKILL.md', storage_session_id: up.storage_session_id, kind: 'skill', version: 3 };
      // Skill files are the host's to prime: a token with scope files:prime.
      await prime(declared, 'skill', [skillRef], undefined, USER, { host: true });
      for (let round = 0; round < 2; round++) {
        const cat = await one(declared, 'skill', 'bash_tool', { command: 'cat /mnt/data/SKILL.md' });
        assert.equal(cat.status, 'success', JSON.stringify(cat.error));
        assert.equal(cat.output.stdout, '# Mandelbrot skill\n');
        const sentSkill = cat.answer.sent.files.find((f) => f.name === 'SKILL.md');
        assert.deepEqual(sentSkill, { name: 'SKILL.md', id: fileId, storage_session_id: up.storage_session_id, kind: 'skill', version: 3 }, `round ${round}`);
      }
      const stored = JSON.parse(await snapshotText(declared, 'skill')).partitions[0][1].files.find((f) => f.name === 'SKILL.md');
      assert.equal(stored.kind, 'skill');
      assert.equal(stored.version, 3);
      assert.equal(stored.resource_id, 'skill_mandel');
    });

    test('6. sandbox failures are typed errors and leave the persisted session as it was', async () => {
      await one(declared, 'faults', 'create_file', { file_path: '/mnt/data/keep.txt', content: 'k\n' });
      const before = await snapshotText(declared, 'faults');
      const cases = [
        [{ kind: 'status', status: 403 }, { code: 'forbidden_file_ref', status: 403 }],
        [{ kind: 'status', status: 429, retryAfter: 7 }, { code: 'rate_limited', status: 429, retryAfterSeconds: 7 }],
        [{ kind: 'status', status: 500 }, { code: 'unavailable', status: 500 }],
        [{ kind: 'drop' }, { code: 'unavailable', reason: 'connection' }],
        [{ kind: 'slow', delayMs: DEADLINE_MS + 1500 }, { code: 'unavailable', reason: 'timeout' }],
      ];
      if (dialect === 'librecodeinterpreter') {
        cases.push([{ kind: 'keepalive-error', afterMs: 700 }, { code: 'unavailable', status: 200 }]);
      }
      for (const [spec, expected] of cases) {
        await fault(sb, { dialect, path: 'exec', fault: spec });
        const r = await one(declared, 'faults', 'bash_tool', { command: 'ls /mnt/data/' });
        assert.equal(r.status, 'error', JSON.stringify(spec));
        for (const [k, v] of Object.entries(expected)) assert.equal(r.error[k], v, `${JSON.stringify(spec)}: ${k} in ${JSON.stringify(r.error)}`);
        assert.equal(r.answer.persisted, false);
        assert.equal(await snapshotText(declared, 'faults'), before, `${JSON.stringify(spec)} changed the session`);
      }
      const again = await one(declared, 'faults', 'bash_tool', { command: 'ls /mnt/data/' });
      assert.equal(again.status, 'success');
      assert.match(again.output.stdout, /keep\.txt/);
    });

    test('7. a model cannot smuggle session_id or files into the sandbox request', async () => {
      const own = await one(declared, 'smuggle', 'create_file', { file_path: '/mnt/data/mine.txt', content: 'm\n' });
      assert.equal(own.status, 'success');
      const foreign = { id: 'ZZZZZZZZZZZZZZZZZZZZZ', resource_id: 'ZZZZZZZZZZZZZZZZZZZZZ', name: 'theirs.txt', storage_session_id: 'YYYYYYYYYYYYYYYYYYYYY', kind: 'user' };
      const r = await one(declared, 'smuggle', 'bash_tool', {
        command: 'ls /mnt/data/',
        session_id: 'XXXXXXXXXXXXXXXXXXXXX',
        files: [foreign],
        _injected_files: [foreign],
        runtime_session_hint: 'someone-else',
      });
      assert.equal(r.status, 'success', JSON.stringify(r.error));
      assert.deepEqual(r.sent.droppedFields, ['session_id', 'files', '_injected_files', 'runtime_session_hint']);
      const body = (await execRequests(sb)).filter((e) => e.dialect === dialect).at(-1).body;
      assert.ok(!body.files.some((f) => f.name === 'theirs.txt'), 'no foreign file reached the wire');
      assert.deepEqual(body.files.map((f) => f.name), ['mine.txt']);
      assert.notEqual(body.session_id, 'XXXXXXXXXXXXXXXXXXXXX');
      const { sandboxSubject } = await import('../../worker/src/sandbox-auth.js');
      assert.equal(body.user_id, await sandboxSubject('', USER), 'the sandbox sees the caller as its user (the worker\'s subject for the token\'s sub)');
      if (dialect === 'codeapi') {
        assert.equal('session_id' in body, false, 'codeapi gets no session_id');
        // The hint names this user's conversation (its Durable Object), never the model's value.
        assert.match(body.runtime_session_hint, /^[0-9a-f]{64}$/);
        assert.equal(body.runtime_session_hint, own.sent.runtime_session_hint, 'the same hint on every call of the conversation');
      } else {
        assert.equal(body.session_id, JSON.parse(await snapshotText(declared, 'smuggle')).partitions[0][1].session_id);
      }
    });
  });
}

