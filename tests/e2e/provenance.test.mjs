// Every ref knows where it came from (issue 47): the worker records how each ref came in (uploaded or
// written by this user, primed by a host as skill or agent) and authorises every action against that
// record, never against what a request says. Two users and a host, in workerd, against the local sandbox
// in both dialects: codeapi in its production auth (each user its own identity there, skill and agent
// files shared within the tenant, as the real server keys them), LibreCodeInterpreter with its one key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DECLARED } from '../../worker/scenario.js';
import {
  DIALECTS,
  api,
  execRequests,
  hostUpload,
  jwtSandbox,
  one,
  partitionNames,
  primeRaw,
  sandbox,
  snapshotText,
  worker,
} from './harness.mjs';

const ALICE = 'alice@example';
const BOB = 'bob@example';

/** The partition entry of a snapshot (default partition). */
const partitionOf = (snapshot) => JSON.parse(snapshot).partitions?.find(([k]) => k === 'execute_code')?.[1];

for (const dialect of DIALECTS) {
  describe(`provenance, ${dialect}`, () => {
    let sb;
    let w;
    let bearer;
    let skill;
    let agent;
    before(async () => {
      if (dialect === 'codeapi') {
        const jwt = await jwtSandbox();
        sb = jwt.sb;
        bearer = await jwt.token('host-admin');
        w = await worker(sb, dialect, DECLARED, undefined, jwt.env);
      } else {
        sb = await sandbox();
        w = await worker(sb, dialect, DECLARED);
      }
      skill = await hostUpload(sb, dialect, 'SKILL.md', 'skill body\n', { kind: 'skill', id: 'skill_pdf', version: 3 }, bearer);
      agent = await hostUpload(sb, dialect, 'agent.txt', 'agent body\n', { kind: 'agent', id: 'agent_abcdefghijk' }, bearer);
    });
    after(async () => {
      await w?.stop();
      await sb?.close();
    });

    test('Alice\'s DELETE leaves Bob\'s skill and agent files, and her own other conversations, working', async () => {
      for (const [user, conv] of [[ALICE, 'a1'], [BOB, 'b1']]) {
        const r = await primeRaw(w, conv, { files: [skill, agent] }, user, true);
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      const up = await api(w, '/conversations/a1/files/notes.txt', { method: 'PUT', body: 'N\n' }, ALICE);
      assert.equal(up.status, 200);
      const notes = (await up.json()).file;
      assert.equal((await primeRaw(w, 'a2', { files: [notes] }, ALICE)).status, 200, 'her upload, held by a second conversation');
      const cat = await one(w, 'a1', 'bash_tool', { command: 'cat /mnt/data/SKILL.md /mnt/data/agent.txt /mnt/data/notes.txt' }, undefined, ALICE);
      assert.equal(cat.status, 'success', JSON.stringify(cat.error));
      assert.equal(cat.output.stdout, 'skill body\nagent body\nN\n');
      const made = await one(w, 'a1', 'create_file', { file_path: '/mnt/data/out.txt', content: 'O\n' }, undefined, ALICE);
      assert.equal(made.status, 'success', JSON.stringify(made.error));

      const del = await api(w, '/conversations/a1', { method: 'DELETE' }, ALICE);
      const body = await del.json();
      assert.equal(del.status, 200, JSON.stringify(body));
      const kept = Object.fromEntries(body.kept.map((k) => [k.name, k.reason]));
      assert.deepEqual(kept, { 'SKILL.md': 'shared', 'agent.txt': 'shared', 'notes.txt': 'held' });
      // Only out.txt was hers alone: deleted in codeapi; LibreCodeInterpreter has no delete route.
      assert.deepEqual(body.deleted.sandbox, dialect === 'codeapi' ? { deleted: 1, failed: 0, unsupported: 0 } : { deleted: 0, failed: 0, unsupported: 1 });

      const bob = await one(w, 'b1', 'bash_tool', { command: 'cat /mnt/data/SKILL.md /mnt/data/agent.txt' }, undefined, BOB);
      assert.equal(bob.status, 'success', JSON.stringify(bob.error));
      assert.equal(bob.output.stdout, 'skill body\nagent body\n');
      const mine = await one(w, 'a2', 'bash_tool', { command: 'cat /mnt/data/notes.txt' }, undefined, ALICE);
      assert.equal(mine.status, 'success', JSON.stringify(mine.error));
      assert.equal(mine.output.stdout, 'N\n');
      // Deleting the last conversation that holds her upload deletes it too. (LibreCodeInterpreter
      // continues a session found through a file of the same user: a2 ran in a1's session and was
      // answered a1's files back as echoes, which are nobody's to delete here.)
      const last = await (await api(w, '/conversations/a2', { method: 'DELETE' }, ALICE)).json();
      assert.ok(last.kept.every((k) => k.reason === 'not_yours' && k.name !== 'notes.txt'), JSON.stringify(last.kept));
      if (dialect === 'codeapi') assert.deepEqual(last.kept, []);
      assert.equal(dialect === 'codeapi' ? last.deleted.sandbox.deleted : last.deleted.sandbox.unsupported, 1);
    });

    test('a shared ref is primed only as what it is: kind-less, as a user file or on a user\'s token it is refused; nothing is stored', async () => {
      assert.equal((await primeRaw(w, 'k1', { files: [skill] }, ALICE, true)).status, 200);
      // Her call echoes the skill file back (inherited): an echo never becomes hers.
      const ran = await one(w, 'k1', 'bash_tool', { command: 'cat /mnt/data/SKILL.md' }, undefined, ALICE);
      assert.equal(ran.status, 'success', JSON.stringify(ran.error));
      const before = await snapshotText(w, 'k2', ALICE);
      const bare = { id: skill.id, name: skill.name, storage_session_id: skill.storage_session_id };
      const attempts = [
        ['kind-less', { files: [bare] }, ALICE, false],
        ['as a user file', { files: [{ ...bare, kind: 'user' }] }, ALICE, false],
        ['kind-less with a host\'s token', { files: [bare] }, ALICE, true],
        ['as skill on a user\'s token', { files: [skill] }, ALICE, false],
        ['as another skill version', { files: [{ ...skill, version: 4 }] }, ALICE, true],
      ];
      for (const [what, body, user, host] of attempts) {
        const r = await primeRaw(w, what === 'as another skill version' ? 'k1' : 'k2', body, user, host);
        assert.equal(r.status, 403, `${what}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'forbidden_file_ref', what);
      }
      assert.equal(await snapshotText(w, 'k2', ALICE), before, 'nothing stored');
      // Her own upload is hers as a user file only, even with a host's token.
      const up = await api(w, '/conversations/k3/files/mine.txt', { method: 'PUT', body: 'M' }, ALICE);
      const mine = (await up.json()).file;
      const asSkill = await primeRaw(w, 'k2', { files: [{ ...mine, kind: 'skill', resource_id: 'skill_pdf', version: 3 }] }, ALICE, true);
      assert.equal(asSkill.status, 403);
      assert.equal((await primeRaw(w, 'k2', { files: [{ id: mine.id, name: 'again.txt', storage_session_id: mine.storage_session_id }] }, ALICE)).status, 200, 'kind-less, her own file is a user file');
    });

    test('refs are checked at the door: ids of the sandbox\'s shape, a relative name, a known kind with its resource; nothing stored', async () => {
      const before = await snapshotText(w, 'door', ALICE);
      const base = { id: 'A'.repeat(21), name: 'a.txt', storage_session_id: 'B'.repeat(21) };
      const bad = [
        { ...base, id: 'x'.repeat(3000) },
        { ...base, storage_session_id: '..' },
        { ...base, id: 'abc/def_ghijklmnopqrst' },
        { ...base, name: '../etc/passwd' },
        { ...base, name: '/abs' },
        { ...base, kind: 'root' },
        { ...base, kind: 'skill', resource_id: 'skill x', version: 1 },
        { ...base, kind: 'skill', resource_id: 'skill_x' },
        { ...base, kind: 'agent', resource_id: 'agent_x', version: 1 },
        'not a ref',
      ];
      for (const [i, ref] of bad.entries()) {
        for (const host of [false, true]) {
          const r = await primeRaw(w, 'door', { files: [ref] }, ALICE, host);
          assert.equal(r.status, 400, `${i}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.error.code, 'invalid_file_ref', `${i}`);
        }
      }
      assert.equal(await snapshotText(w, 'door', ALICE), before);
    });

    test('a partition\'s exec session is only ever the user\'s own file\'s storage session, never a shared one', async () => {
      const onlyShared = await primeRaw(w, 's1', { files: [skill, agent] }, ALICE, true);
      assert.equal(onlyShared.status, 200);
      assert.equal(onlyShared.body.session.session_id, undefined, 'no session from a shared file');
      const up = await api(w, '/conversations/s0/files/own.txt', { method: 'PUT', body: 'own' }, ALICE);
      const own = (await up.json()).file;
      const mixed = await primeRaw(w, 's2', { files: [skill, own] }, ALICE, true);
      assert.equal(mixed.status, 200, JSON.stringify(mixed.body));
      assert.equal(mixed.body.session.session_id, own.storage_session_id, 'the session of her own file, though the skill came first');
      // A call in the partition that holds only shared files runs in a session of its own.
      const seen = (await execRequests(sb)).length;
      const ran = await one(w, 's1', 'bash_tool', { command: 'cat /mnt/data/SKILL.md > /mnt/data/copy.md' }, undefined, ALICE);
      assert.equal(ran.status, 'success', JSON.stringify(ran.error));
      const sent = (await execRequests(sb)).slice(seen).map((r) => r.body.session_id);
      assert.ok(!sent.includes(skill.storage_session_id) && !sent.includes(agent.storage_session_id), `exec sessions sent: ${sent}`);
      const entry = partitionOf(await snapshotText(w, 's1', ALICE));
      assert.notEqual(entry.session_id, skill.storage_session_id);
      assert.notEqual(entry.session_id, agent.storage_session_id);
      const copy = entry.files.find((f) => f.name === 'copy.md');
      assert.notEqual(copy.storage_session_id, skill.storage_session_id, 'her output never lands in the skill\'s session');
    });
  });
}

describe('partition and snapshot caps', () => {
  let sb;
  before(async () => {
    sb = await sandbox();
  });
  after(async () => {
    await sb?.close();
  });

  test('partitions per conversation and the snapshot\'s size are capped with typed 413s; a refusal stores nothing', async () => {
    const w = await worker(sb, 'codeapi', DECLARED, undefined, { MAX_PARTITIONS_PER_CONVERSATION: '2', MAX_SNAPSHOT_BYTES: '2500' });
    try {
      assert.equal((await api(w, '/conversations/p/files/a.txt', { method: 'PUT', body: 'a' }, ALICE)).status, 200);
      assert.equal((await api(w, '/conversations/p/files/b.txt?agent=second', { method: 'PUT', body: 'b' }, ALICE)).status, 200);
      const before = await snapshotText(w, 'p', ALICE);
      const third = await api(w, '/conversations/p/files/c.txt?agent=third', { method: 'PUT', body: 'c' }, ALICE);
      assert.equal(third.status, 413);
      assert.equal((await third.json()).error.code, 'too_many_partitions');
      const calls = await api(w, '/conversations/p/tool-calls', { method: 'POST', body: JSON.stringify({ calls: [{ id: 'x', name: 'bash_tool', args: { command: 'true' } }], agent: { codeSessionKey: 'third' } }) }, ALICE);
      assert.equal(calls.status, 413);
      assert.equal((await calls.json()).error.code, 'too_many_partitions');
      assert.equal(await snapshotText(w, 'p', ALICE), before);
      // Files until the snapshot would pass 2,500 bytes: the upload that would is refused and undone.
      let status = 200;
      let i = 0;
      let last;
      while (status === 200 && i < 50) {
        last = await snapshotText(w, 'p', ALICE);
        const res = await api(w, `/conversations/p/files/file-${i++}.txt`, { method: 'PUT', body: 'x' }, ALICE);
        status = res.status;
        if (status !== 200) assert.equal((await res.json()).error.code, 'snapshot_too_large');
      }
      assert.equal(status, 413);
      assert.equal(await snapshotText(w, 'p', ALICE), last, 'the refused upload left the snapshot as it was');
      assert.ok(last.length <= 2500);
    } finally {
      await w.stop();
    }
  });

  test('a batch\'s answer lists the partition\'s files once: 64 calls on a 1,000-file partition answer under 1 MB', async () => {
    // Each run mounts a thousand files: the harness's short deadline is for the timeout tests.
    const w = await worker(sb, 'codeapi', DECLARED, undefined, { MAX_REFS_PER_PRIME: '1000', SANDBOX_DEADLINE_MS: '120000' });
    try {
      const up = await api(w, '/conversations/big-src/files/f.txt', { method: 'PUT', body: 'one file, many names\n' }, ALICE);
      const file = (await up.json()).file;
      const names = Array.from({ length: 1000 }, (_, k) => ({ id: file.id, storage_session_id: file.storage_session_id, name: `f${String(k).padStart(4, '0')}.txt` }));
      const r = await primeRaw(w, 'big', { files: names }, ALICE);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(partitionNames(await snapshotText(w, 'big', ALICE)).length, 1000);
      const calls = Array.from({ length: 64 }, (_, k) => ({ id: `c${k}`, name: 'bash_tool', args: { command: 'true' } }));
      const res = await api(w, '/conversations/big/tool-calls', { method: 'POST', body: JSON.stringify({ calls }) }, ALICE);
      const text = await res.text();
      assert.equal(res.status, 200, text.slice(0, 500));
      const answer = JSON.parse(text);
      assert.ok(text.length < 1_000_000, `the answer is ${text.length} bytes`);
      console.log(`64 calls on a 1,000-file partition: the answer is ${text.length} bytes`);
      assert.equal(answer.results.length, 64);
      assert.ok(answer.results.every((r) => r.status === 'success' && r.sent.files === 1000), String(JSON.stringify(answer.results.find((r) => r.status !== "success" || r.sent.files !== 1000))).slice(0, 2000));
      assert.equal(answer.inherited.length, 1000, 'the echoes, once');
      assert.ok(answer.results.every((r) => r.artifact.inherited === 1000 && r.artifact.files.length === 0));
    } finally {
      await w.stop();
    }
  });
});
