// The worker against the REAL sandbox servers, built and started from their sources by
// scripts/sandboxes/ (codeapi in its production JWT mode, LibreCodeInterpreter with its API key): the
// seed scenario, two users, the file routes, and where each ref came from (issue 47: a host's skill file
// survives a user's DELETE on codeapi; a shared ref is never taken as a user's own on
// LibreCodeInterpreter), through the worker in workerd. Run by scripts/sandboxes/test-real.sh, which
// starts the servers and writes each one's endpoint.json; the servers it names are the ones tested
// (CSG_REAL_SANDBOXES=codeapi,librecodeinterpreter).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DECLARED, SEED_STEPS, judgeSeed } from '../../worker/scenario.js';
import { api, call, one, partitionNames, primeRaw, snapshotText, tokenFor, worker } from '../e2e/harness.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENDPOINTS = {
  codeapi: join(ROOT, '.cache', 'sandboxes', 'codeapi', 'endpoint.json'),
  librecodeinterpreter: join(ROOT, '.cache', 'sandboxes', 'lci', 'endpoint.json'),
};
const SERVERS = (process.env.CSG_REAL_SANDBOXES ?? 'codeapi,librecodeinterpreter').split(',').filter(Boolean);

const ALICE = 'alice-real';
const BOB = 'bob-real';

/** The worker's settings for a real server, from the endpoint its start script wrote. */
function sandboxEnv(name) {
  const endpoint = JSON.parse(readFileSync(ENDPOINTS[name], 'utf8'));
  const env = { SANDBOX_URL: endpoint.url, SANDBOX_DIALECT: endpoint.dialect, SANDBOX_TIMEOUT_MS: '60000', SANDBOX_DEADLINE_MS: '120000' };
  if (endpoint.dialect === 'codeapi') {
    return {
      ...env,
      SANDBOX_AUTH: 'codeapi-jwt',
      SANDBOX_CREDENTIAL: '',
      SANDBOX_JWT_PRIVATE_KEY: readFileSync(endpoint.privateKeyPem, 'utf8'),
      SANDBOX_JWT_KID: endpoint.kid,
      SANDBOX_JWT_ISSUER: endpoint.issuer,
      SANDBOX_JWT_AUDIENCE: endpoint.audience,
    };
  }
  return { ...env, SANDBOX_AUTH: 'static', SANDBOX_CREDENTIAL: endpoint.apiKey };
}

/**
 * The sandbox's user for the worker's caller `sub`: not the `sub` as it is but the worker's own subject
 * for it (src/sandbox-auth.js), under the issuer '' (the tests' worker verifies callers with a secret,
 * whose holder is the one issuer). Every file the worker puts in the sandbox for `sub` is this user's.
 */
async function sandboxUser(sub) {
  const { sandboxSubject } = await import('../../worker/src/sandbox-auth.js');
  return sandboxSubject('', sub);
}

/** A codeapi token for the sandbox user `subject`, minted as the worker mints its own (the endpoint's key). */
async function codeapiToken(subject) {
  const env = sandboxEnv('codeapi');
  const { mintSandboxToken } = await import('../../worker/src/sandbox-auth.js');
  return mintSandboxToken({ mode: 'codeapi-jwt', privateKeyPem: env.SANDBOX_JWT_PRIVATE_KEY, kid: env.SANDBOX_JWT_KID, ttlSeconds: 300, issuer: env.SANDBOX_JWT_ISSUER, audience: env.SANDBOX_JWT_AUDIENCE }, subject);
}

/**
 * codeapi's metadata of the user file `ref` of the worker's caller `user`, asked as their sandbox user:
 * 200 while the file is there, 404 once it is deleted.
 */
async function codeapiObjectStatus(user, ref) {
  const subject = await sandboxUser(user);
  const res = await fetch(`${sandboxEnv('codeapi').SANDBOX_URL}/sessions/${ref.storage_session_id}/objects/${ref.id}?kind=user&id=${encodeURIComponent(subject)}`, { headers: { authorization: `Bearer ${await codeapiToken(subject)}` } });
  await res.body?.cancel();
  return res.status;
}

/**
 * The file `ref` of `user` is gone from the server, standing in for its expiry: codeapi deletes it
 * (`DELETE /files/:session/:file`, with a token for the sandbox user the worker stored it as: its own
 * subject for `user`, which alone passes codeapi's check on a user file); LibreCodeInterpreter, which
 * has no delete route, forgets every session and file (its start script empties its Redis).
 */
async function expireFile(name, user, ref) {
  if (name === 'librecodeinterpreter') {
    execFileSync(join(ROOT, 'scripts', 'sandboxes', 'librecodeinterpreter.sh'), ['expire'], { stdio: 'ignore' });
    return;
  }
  const subject = await sandboxUser(user);
  const res = await fetch(`${sandboxEnv(name).SANDBOX_URL}/files/${ref.storage_session_id}/${ref.id}?kind=user&id=${encodeURIComponent(subject)}`, { method: 'DELETE', headers: { authorization: `Bearer ${await codeapiToken(subject)}` } });
  assert.equal(res.status, 200, await res.text());
}

/** The host that uploads skill files straight to codeapi (its own codeapi user, no user of the worker). */
const HOST_SUBJECT = 'host-admin-real';

/**
 * A host's upload of one skill file straight to the server, as LibreChat primes a skill's files: codeapi
 * with the skill's identity fields BEFORE the file part (codeapi reads them as the file streams) and a
 * token minted for the host; LibreCodeInterpreter with its key, into an upload session of its own.
 * Answers the ref a host primes through the worker (kind, resource_id, version).
 * @param {{ id: string, version: number }} skill
 */
async function hostUploadSkill(name, filename, content, skill) {
  const endpoint = JSON.parse(readFileSync(ENDPOINTS[name], 'utf8'));
  const form = new FormData();
  let headers;
  if (endpoint.dialect === 'codeapi') {
    form.append('kind', 'skill');
    form.append('id', skill.id);
    form.append('version', String(skill.version));
    headers = { authorization: `Bearer ${await codeapiToken(HOST_SUBJECT)}` };
  } else {
    headers = { 'x-api-key': endpoint.apiKey };
  }
  form.append('file', new Blob([content], { type: 'text/plain' }), filename);
  const res = await fetch(`${endpoint.url}/upload`, { method: 'POST', body: form, headers });
  const answer = await res.text();
  assert.equal(res.status, 200, `host upload: ${answer}`);
  const out = JSON.parse(answer);
  return {
    id: out.files[0].fileId,
    name: out.files[0].filename,
    storage_session_id: out.storage_session_id ?? out.session_id,
    kind: 'skill',
    resource_id: skill.id,
    version: skill.version,
  };
}

/** A fake `sb` for the harness's worker(): only the base URL is read, and it is overridden by env. */
const NO_LOCAL_SANDBOX = { codeapiUrl: 'http://127.0.0.1:9', lciUrl: 'http://127.0.0.1:9' };

for (const name of SERVERS) {
  describe(`the worker against the real ${name}`, () => {
    let w;
    before(async () => {
      w = await worker(NO_LOCAL_SANDBOX, name, DECLARED, undefined, sandboxEnv(name));
    });
    after(async () => {
      await w?.stop();
    });

    test('the seed scenario: create_file, bash_tool lists it, edit_file, the edited file runs', async () => {
      const outcomes = [];
      for (const step of SEED_STEPS) {
        const answer = await call(w, 'seed', [step], undefined, ALICE);
        outcomes.push({ ...answer.results[0], answer });
      }
      assert.deepEqual(judgeSeed(outcomes), { created: true, listed: true, edited: true, ranEdited: true }, JSON.stringify(outcomes, null, 1));
      assert.deepEqual(partitionNames(await snapshotText(w, 'seed', ALICE)), ['mandelbrot.py']);
    });

    // codeapi reports only files of its allow-listed extensions (txt, csv, png, json, …): the names say .csv / .txt.
    test('files: an upload the next call reads, a model-written file downloaded byte for byte', async () => {
      const bytes = Buffer.from([...Array(256).keys()]);
      const up = await api(w, '/conversations/files/files/data.csv', { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } }, ALICE);
      assert.equal(up.status, 200, await up.clone().text());
      const uploaded = (await up.json()).file;
      const sum = await one(w, 'files', 'execute_code', { lang: 'py', code: `import hashlib;print(hashlib.sha256(open('/mnt/data/${uploaded.name}','rb').read()).hexdigest())` }, undefined, ALICE);
      assert.equal(sum.status, 'success', JSON.stringify(sum));
      assert.equal(sum.output.stdout.trim(), createHash('sha256').update(bytes).digest('hex'));
      const made = await one(w, 'files', 'execute_code', { lang: 'py', code: "open('/mnt/data/out.txt','wb').write(bytes(range(255,-1,-1)))" }, undefined, ALICE);
      assert.equal(made.status, 'success', JSON.stringify(made));
      const down = await api(w, '/conversations/files/files/out.txt', {}, ALICE);
      assert.equal(down.status, 200, await down.clone().text());
      assert.ok(Buffer.from(await down.arrayBuffer()).equals(Buffer.from([...Array(256).keys()].reverse())));
      assert.equal(down.headers.get('content-disposition'), "attachment; filename*=UTF-8''out.txt");
    });

    test('two users: nothing of Alice\'s reaches Bob, by the worker or by the sandbox', async () => {
      const made = await one(w, 'two', 'create_file', { file_path: '/mnt/data/alice.txt', content: 'secret\n' }, undefined, ALICE);
      assert.equal(made.status, 'success', JSON.stringify(made));
      const ref = JSON.parse(await snapshotText(w, 'two', ALICE)).partitions[0][1].files[0];
      const res = await fetch(`${w.url}/conversations/two/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await tokenFor(BOB)}` },
        body: JSON.stringify({ files: [ref] }),
      });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).error.code, 'forbidden_file_ref');
      const ls = await one(w, 'two', 'bash_tool', { command: 'ls /mnt/data; cat /mnt/data/alice.txt || true' }, undefined, BOB);
      assert.doesNotMatch(ls.output?.stdout ?? '', /secret|alice\.txt/);
      assert.equal((await api(w, '/conversations/two/files/alice.txt', {}, BOB)).status, 404);
      // Alice primes her own file into another conversation, and reads it there.
      const own = await fetch(`${w.url}/conversations/two-b/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await tokenFor(ALICE)}` },
        body: JSON.stringify({ files: [ref] }),
      });
      assert.equal(own.status, 200, await own.clone().text());
      const cat = await one(w, 'two-b', 'bash_tool', { command: 'cat /mnt/data/alice.txt' }, undefined, ALICE);
      assert.equal(cat.output.stdout, 'secret\n');
    });

    test('files the server dropped are given again from the worker\'s copy (codeapi: in one batch upload): the next call reads their exact bytes', async () => {
      const fresh = await worker(NO_LOCAL_SANDBOX, name, DECLARED, undefined, { ...sandboxEnv(name), FILE_FRESH_S: '1' });
      try {
        const bytes = Buffer.from([...Array(256).keys(), ...Array(256).keys()].reverse());
        const other = Buffer.from('x,y\n3,4\n');
        const refs = [];
        for (const [file, body] of [['kept.csv', bytes], ['second.csv', other]]) {
          const up = await api(fresh, `/conversations/kept/files/${file}`, { method: 'PUT', body }, ALICE);
          assert.equal(up.status, 200, await up.clone().text());
          refs.push((await up.json()).file);
        }
        for (const ref of refs) await expireFile(name, ALICE, ref);
        await sleep(1100);
        const code = `import hashlib;print(hashlib.sha256(open('/mnt/data/${refs[0].name}','rb').read()).hexdigest());print(open('/mnt/data/${refs[1].name}').read())`;
        const sum = await one(fresh, 'kept', 'execute_code', { lang: 'py', code }, undefined, ALICE);
        assert.equal(sum.status, 'success', JSON.stringify(sum));
        const [digest, ...rest] = sum.output.stdout.split('\n');
        assert.equal(digest.trim(), createHash('sha256').update(bytes).digest('hex'));
        assert.equal(rest.join('\n').trim(), other.toString().trim());
        assert.deepEqual(sum.answer.refreshed.map((r) => r.name).sort(), refs.map((r) => r.name).sort());
      } finally {
        await fresh.stop();
      }
    });

    // Issue 47 on codeapi, whose shared kinds are keyed on the resource alone: any user of the tenant who
    // names a skill file passes codeapi's check on it, so a worker that deleted every ref of a deleted
    // conversation as what the ref said it was deleted a host's skill file for every user.
    if (name === 'codeapi') {
      test('a host\'s skill file survives Alice\'s DELETE (kept as shared) and Bob reads it after; her own output is deleted in codeapi', async () => {
        const content = `# skill ${randomBytes(6).toString('hex')}\n`;
        // A skill id as LibreChat's are (a 24-digit hex ObjectId), fresh per run: codeapi keys the file on it.
        const skill = await hostUploadSkill(name, 'SKILL.md', content, { id: randomBytes(12).toString('hex'), version: 1 });
        for (const [user, conversation] of [[ALICE, 'skill-alice'], [BOB, 'skill-bob']]) {
          const primed = await primeRaw(w, conversation, { files: [skill] }, user, true);
          assert.equal(primed.status, 200, `${user}: ${JSON.stringify(primed.body)}`);
        }
        const ran = await one(w, 'skill-alice', 'bash_tool', { command: 'cat /mnt/data/SKILL.md && printf mine > /mnt/data/alice-own.txt' }, undefined, ALICE);
        assert.equal(ran.status, 'success', JSON.stringify(ran));
        assert.equal(ran.output.stdout, content);
        const own = ran.answer.session.files.find((f) => f.name === 'alice-own.txt');
        assert.ok(own, JSON.stringify(ran.answer.session));
        // Asked as her sandbox user: so the 404 below is the deletion, not a request codeapi refuses.
        assert.equal(await codeapiObjectStatus(ALICE, own), 200, 'her output is in codeapi, as hers');

        const del = await api(w, '/conversations/skill-alice', { method: 'DELETE' }, ALICE);
        const body = await del.json();
        assert.equal(del.status, 200, JSON.stringify(body));
        assert.deepEqual(
          body.kept.map((k) => ({ name: k.name, id: k.id, storage_session_id: k.storage_session_id, reason: k.reason })),
          [{ name: 'SKILL.md', id: skill.id, storage_session_id: skill.storage_session_id, reason: 'shared' }],
          JSON.stringify(body),
        );
        assert.ok(body.deleted.sandbox.deleted >= 1, JSON.stringify(body));
        assert.equal(body.deleted.sandbox.failed, 0, JSON.stringify(body));
        assert.equal(await codeapiObjectStatus(ALICE, own), 404, 'her own output is gone from codeapi');

        // The file Bob was given is still there for him, byte for byte.
        const bob = await one(w, 'skill-bob', 'bash_tool', { command: 'cat /mnt/data/SKILL.md' }, undefined, BOB);
        assert.equal(bob.status, 'success', JSON.stringify(bob));
        assert.equal(bob.output.stdout, content);
      });
    }

    // Issue 47 on LibreCodeInterpreter, which runs a call in the session the request names: a skill
    // file primed without its kind was taken as the user's own, a new partition's session was seeded
    // from its upload session, and the user's calls then ran (and wrote) in the skill's session.
    if (name === 'librecodeinterpreter') {
      test('a shared ref is never Alice\'s own: a kind-less prime of it is refused, and her calls run and write outside its session', async () => {
        const content = `skill ${randomBytes(6).toString('hex')}\n`;
        const skill = await hostUploadSkill(name, 'SKILL.md', content, { id: randomBytes(12).toString('hex'), version: 1 });
        const primed = await primeRaw(w, 'shared-c1', { files: [skill] }, ALICE, true);
        assert.equal(primed.status, 200, JSON.stringify(primed.body));
        assert.equal(primed.body.session?.session_id, undefined, 'no exec session seeded from a shared file');

        const bare = { id: skill.id, name: skill.name, storage_session_id: skill.storage_session_id };
        // Refused whoever's token carries it; c2 stays as it was. Tried again once her call has echoed
        // the skill file back: an echo never makes a file hers either.
        const refusedKindless = async (when) => {
          const before = await snapshotText(w, 'shared-c2', ALICE);
          for (const host of [false, true]) {
            const r = await primeRaw(w, 'shared-c2', { files: [bare] }, ALICE, host);
            assert.equal(r.status, 403, `${when}, ${host ? 'a host\'s token' : 'her token'}: ${JSON.stringify(r.body)}`);
            assert.equal(r.body.error.code, 'forbidden_file_ref', when);
          }
          assert.equal(await snapshotText(w, 'shared-c2', ALICE), before, `${when}: nothing stored`);
        };
        await refusedKindless('before her call');

        const ran = await one(w, 'shared-c1', 'bash_tool', { command: 'cat /mnt/data/SKILL.md && printf mine > /mnt/data/alice-own.txt' }, undefined, ALICE);
        assert.equal(ran.status, 'success', JSON.stringify(ran));
        assert.equal(ran.output.stdout, content);
        const session = ran.answer.session;
        assert.equal(typeof session?.session_id, 'string', JSON.stringify(session));
        assert.notEqual(session.session_id, skill.storage_session_id, 'her call ran in a session of her own, not the skill\'s');
        const own = session.files.find((f) => f.name === 'alice-own.txt');
        assert.ok(own, JSON.stringify(session));
        assert.notEqual(own.storage_session_id, skill.storage_session_id, 'her output did not land in the skill\'s session');
        // And as the server itself lists it: the skill's upload session holds the skill file alone.
        const endpoint = JSON.parse(readFileSync(ENDPOINTS[name], 'utf8'));
        const listed = await fetch(`${endpoint.url}/files/${skill.storage_session_id}?detail=simple`, { headers: { 'x-api-key': endpoint.apiKey } });
        const files = await listed.json();
        assert.equal(listed.status, 200, JSON.stringify(files));
        assert.deepEqual(files.map((f) => f.name), ['SKILL.md']);

        await refusedKindless('after her call echoed it');
      });
    }
  });
}
