// The worker in production (issue 30): each user its own sandbox identity, and nothing of one user
// reachable by another. Every attack that was shown against the worker, as a regression test with two
// users in both dialects: refused, nothing stored, nothing downloadable, and no request outside the
// sandbox's own routes (the local sandbox records every request line it receives).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startSandbox } from '../../examples/sandbox/server.mjs';
import { sandboxUrl } from '../../worker/src/sandbox-files.js';
import { DECLARED } from '../../worker/scenario.js';
import {
  DIALECTS,
  PRIME_SCOPE,
  api,
  call,
  jwtSandbox,
  one,
  partitionNames,
  sandboxPaths,
  sandboxRequests,
  snapshotText,
  tokenFor,
  useSandbox,
  worker,
} from './harness.mjs';

// sandbox-auth.js imports jose from the worker's node_modules, which the harness installs first.
const { sandboxSubject } = await import('../../worker/src/sandbox-auth.js');

const ALICE = 'alice@example';
const BOB = 'bob@example';

/** POSTs a prime as `user` (a host's token with `host`); returns status and body. */
async function primeAs(w, conversation, body, user, host = false) {
  const res = await fetch(`${w.url}/conversations/${conversation}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor(user, host ? PRIME_SCOPE : undefined)}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The routes a sandbox serves the worker: anything else in its request log is a request steered elsewhere. */
const ID = '[A-Za-z0-9_-]+';
const SANDBOX_ROUTES = new RegExp(
  `^(POST /(codeapi|lci)/(exec|upload)|GET /(codeapi|lci)/download/${ID}/${ID}|GET /(codeapi|lci)/sessions/${ID}/objects/${ID}|DELETE /codeapi/files/${ID}/${ID})(\\?[^/]*)?$`,
);

const box = useSandbox();

for (const dialect of DIALECTS) {
  describe(`one user's files are out of another's reach, ${dialect}`, () => {
    let w;
    /** A file of Bob's, as every answer, snapshot and trace shows it. */
    let bobsRef;
    before(async () => {
      w = await worker(box.sb, dialect, DECLARED);
      const made = await one(w, 'bob-conv', 'create_file', { file_path: '/mnt/data/bob-secret.txt', content: 'B\n' }, undefined, BOB);
      assert.equal(made.status, 'success', JSON.stringify(made.error));
      bobsRef = JSON.parse(await snapshotText(w, 'bob-conv', BOB)).partitions[0][1].files[0];
    });
    after(async () => {
      await w?.stop();
    });

    test('priming another user\'s ref, a made-up ref or a session id is refused: nothing stored, nothing sent', async () => {
      assert.equal((await one(w, 'alice-conv', 'bash_tool', { command: 'true' }, undefined, ALICE)).status, 'success');
      const before = await snapshotText(w, 'alice-conv', ALICE);
      const sandboxBefore = await sandboxRequests(box.sb);
      const attempts = [
        ['Bob\'s ref', { files: [bobsRef] }, 403, 'forbidden_file_ref'],
        ['Bob\'s ref among her own names', { files: [{ ...bobsRef, name: 'mine.txt' }] }, 403, 'forbidden_file_ref'],
        ['a ref that steers the download URL', { files: [{ id: 'admin', name: 'x', storage_session_id: '..' }] }, 400, 'invalid_file_ref'],
        ['a private agent\'s file', { files: [{ id: bobsRef.id, resource_id: 'agent_private', name: 'a.txt', storage_session_id: bobsRef.storage_session_id, kind: 'agent' }] }, 403, 'forbidden_file_ref'],
        ['a skill ref with a user\'s token', { files: [{ id: 'skillfile00000000001a', resource_id: 'skill_x', name: 'SKILL.md', storage_session_id: 'skillstore0000000001a', kind: 'skill', version: 1 }] }, 403, 'forbidden_file_ref'],
        ['Bob\'s exec session as hers', { files: [bobsRef], session_id: bobsRef.storage_session_id }, 403, 'forbidden_session'],
      ];
      for (const [what, body, status, code] of attempts) {
        const r = await primeAs(w, 'alice-conv', body, ALICE);
        assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, code, what);
      }
      assert.equal(await snapshotText(w, 'alice-conv', ALICE), before, 'nothing stored');
      assert.deepEqual(await sandboxRequests(box.sb), sandboxBefore, 'nothing sent to the sandbox');
      // Bob's file is not hers to download, list or read from bash_tool.
      assert.equal((await api(w, '/conversations/alice-conv/files/bob-secret.txt', {}, ALICE)).status, 404);
      const cat = await one(w, 'alice-conv', 'bash_tool', { command: 'cat /mnt/data/bob-secret.txt; ls /mnt/data' }, undefined, ALICE);
      assert.doesNotMatch(cat.output.stdout, /B\n|bob-secret/);
    });

    test('a user primes what the worker gave her: her own upload and output, into another conversation', async () => {
      const up = await api(w, '/conversations/alice-src/files/notes.txt', { method: 'PUT', body: 'N\n' }, ALICE);
      assert.equal(up.status, 200);
      const uploaded = (await up.json()).file;
      const made = await one(w, 'alice-src', 'create_file', { file_path: '/mnt/data/out.txt', content: 'O\n' }, undefined, ALICE);
      const output = made.artifact.files.find((f) => f.name === 'out.txt');
      const r = await primeAs(w, 'alice-dst', { files: [uploaded, output] }, ALICE);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(partitionNames(await snapshotText(w, 'alice-dst', ALICE)), ['notes.txt', 'out.txt']);
      const cat = await one(w, 'alice-dst', 'bash_tool', { command: 'cat /mnt/data/notes.txt /mnt/data/out.txt' }, undefined, ALICE);
      assert.equal(cat.output.stdout, 'N\nO\n');
      // Bob cannot prime Alice's, even knowing them.
      const stolen = await primeAs(w, 'bob-conv', { files: [uploaded] }, BOB);
      assert.equal(stolen.status, 403);
    });

    test('a host\'s token (scope files:prime) primes skill and agent refs; the partition\'s session stays the user\'s', async () => {
      const skill = { id: 'skillfile00000000001a', resource_id: 'skill_x', name: 'SKILL.md', storage_session_id: 'skillstore0000000001a', kind: 'skill', version: 2 };
      const r = await primeAs(w, 'alice-skill', { files: [skill] }, ALICE, true);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.session.session_id, undefined, 'a shared ref never becomes the user\'s exec session');
      assert.deepEqual(partitionNames(await snapshotText(w, 'alice-skill', ALICE)), ['SKILL.md']);
    });

    test('downloads are attachments a browser never renders in the worker\'s origin', async () => {
      const up = await api(w, '/conversations/alice-html/files/page.html', { method: 'PUT', body: '<script>alert(1)</script>', headers: { 'content-type': 'text/html' } }, ALICE);
      assert.equal(up.status, 200);
      const res = await api(w, '/conversations/alice-html/files/page.html', {}, ALICE);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-disposition'), 'attachment; filename*=UTF-8\'\'page.html');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('content-security-policy'), 'sandbox');
      await res.arrayBuffer();
    });

    test('caps: refs per prime and files per partition are typed refusals; a batch lists the refs it sent once', async () => {
      const small = await worker(box.sb, dialect, DECLARED, undefined, { MAX_FILES_PER_PARTITION: '2', MAX_REFS_PER_PRIME: '2' });
      try {
        for (const name of ['a.txt', 'b.txt']) {
          assert.equal((await api(small, `/conversations/cap/files/${name}`, { method: 'PUT', body: name }, ALICE)).status, 200);
        }
        const third = await api(small, '/conversations/cap/files/c.txt', { method: 'PUT', body: 'c' }, ALICE);
        assert.equal(third.status, 413);
        assert.equal((await third.json()).error.code, 'too_many_files');
        assert.equal((await api(small, '/conversations/cap/files/a.txt', { method: 'PUT', body: 'a2' }, ALICE)).status, 200, 'replacing a name adds no file');
        const refs = Array.from({ length: 3 }, (_, i) => ({ id: `f${i}`, name: `${i}.txt`, storage_session_id: 's' }));
        const many = await primeAs(small, 'cap2', { files: refs }, ALICE);
        assert.equal(many.status, 413);
        assert.equal(many.body.error.code, 'too_many_files');
        // Two calls of one request: the files sent are listed once for the batch, counted per call.
        const answer = await call(small, 'cap', [
          { id: 'x1', name: 'bash_tool', args: { command: 'ls' } },
          { id: 'x2', name: 'bash_tool', args: { command: 'ls' } },
        ], undefined, ALICE);
        assert.deepEqual(answer.results.map((r) => r.sent.files), [2, 2]);
        assert.deepEqual(answer.sent.files.map((f) => f.name).sort(), ['a.txt', 'b.txt']);
      } finally {
        await small.stop();
      }
    });

    test('a given ref is primeable for REF_TTL_S after it was last given, then forgotten', async () => {
      const short = await worker(box.sb, dialect, DECLARED, undefined, { REF_TTL_S: '1' });
      try {
        const made = await one(short, 'ttl', 'create_file', { file_path: '/mnt/data/ttl.txt', content: 'T\n' }, undefined, ALICE);
        assert.equal(made.status, 'success', JSON.stringify(made.error));
        const ref = JSON.parse(await snapshotText(short, 'ttl', ALICE)).partitions[0][1].files[0];
        assert.equal((await primeAs(short, 'ttl-now', { files: [ref] }, ALICE)).status, 200, 'within its lifetime');
        await new Promise((r) => setTimeout(r, 1_200));
        const late = await primeAs(short, 'ttl-late', { files: [ref] }, ALICE);
        assert.equal(late.status, 403, 'past its lifetime');
        assert.equal(late.body.error.code, 'forbidden_file_ref');
        // Given again (an upload's new ref), a file is primeable again.
        assert.equal((await api(short, '/conversations/ttl/files/again.txt', { method: 'PUT', body: 'A' }, ALICE)).status, 200);
        const again = JSON.parse(await snapshotText(short, 'ttl', ALICE)).partitions[0][1].files.find((f) => f.name === 'again.txt');
        assert.equal((await primeAs(short, 'ttl-again', { files: [again] }, ALICE)).status, 200);
      } finally {
        await short.stop();
      }
    });

    test('no request the worker sent left the sandbox\'s own routes', async () => {
      const strays = (await sandboxPaths(box.sb)).filter((p) => !SANDBOX_ROUTES.test(p));
      assert.deepEqual(strays, []);
    });
  });
}

test('a ref\'s ids never steer a sandbox URL', () => {
  const sandbox = { url: 'http://127.0.0.1:9/codeapi', dialect: 'codeapi' };
  assert.equal(sandboxUrl(sandbox, 'download', ['AAAAAAAAAAAAAAAAAAAA1', 'BBBBBBBBBBBBBBBBBBBB1']).href, 'http://127.0.0.1:9/codeapi/download/AAAAAAAAAAAAAAAAAAAA1/BBBBBBBBBBBBBBBBBBBB1');
  for (const ids of [['..', 'admin'], ['a/b', 'c'], ['%2e%2e', 'x'], ['a', '?x=1'], ['a', ''], ['a', undefined], ['a', 'x#y'], ['.', 'a'], ['a', 'é']]) {
    assert.throws(() => sandboxUrl(sandbox, 'download', ids), (e) => e.code === 'invalid_file_ref', JSON.stringify(ids));
  }
});

describe('limits per user, across conversations', () => {
  test('runs are counted per user over 30 conversations; another user is not held back', async () => {
    const w = await worker(box.sb, 'codeapi', DECLARED, undefined, { RUNS_PER_MINUTE: '64', RATE_LIMIT_PER_MINUTE: '1000' });
    try {
      // 2 runs per request, in 30 conversations: the 33rd request would pass 64 runs.
      const two = [{ id: 'a', name: 'bash_tool', args: { command: 'true' } }, { id: 'b', name: 'bash_tool', args: { command: 'true' } }];
      for (let i = 0; i < 32; i++) {
        const res = await api(w, `/conversations/c${i % 30}/tool-calls`, { method: 'POST', body: JSON.stringify({ calls: two }) }, ALICE);
        assert.equal(res.status, 200, `request ${i}: ${await res.text()}`);
      }
      const before = await snapshotText(w, 'c3', ALICE);
      const over = await api(w, '/conversations/c3/tool-calls', { method: 'POST', body: JSON.stringify({ calls: two }) }, ALICE);
      assert.equal(over.status, 429);
      assert.equal((await over.json()).error.code, 'rate_limited');
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
      assert.equal(await snapshotText(w, 'c3', ALICE), before, 'a refused batch stores nothing');
      assert.equal((await one(w, 'c3', 'bash_tool', { command: 'true' }, undefined, BOB)).status, 'success', 'Bob has his own count');
    } finally {
      await w.stop();
    }
  });

  test('a user over the request window is refused before the body is read', async () => {
    const w = await worker(box.sb, 'codeapi', DECLARED, undefined, { RATE_LIMIT_PER_MINUTE: '1' });
    try {
      assert.equal((await api(w, '/conversations/u/files', {}, ALICE)).status, 200);
      // A body that never ends: only a refusal that does not read it can answer.
      const body = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(1024)); } });
      const res = await api(w, '/conversations/u/files/big.bin', { method: 'PUT', body, duplex: 'half', signal: AbortSignal.timeout(10_000) }, ALICE);
      assert.equal(res.status, 429);
      assert.equal((await res.json()).error.code, 'rate_limited');
    } finally {
      await w.stop();
    }
  });

  test('runs in flight are capped per user: a batch runs through its slots, a second request waits its turn', async () => {
    const w = await worker(box.sb, 'codeapi', DECLARED, undefined, { MAX_CONCURRENT_RUNS: '1' });
    try {
      // One slot: three calls of one batch run one after another, all of them.
      const three = ['a', 'b', 'c'].map((id) => ({ id, name: 'bash_tool', args: { command: `date +%s%N; sleep 0.2; date +%s%N` } }));
      const answer = await call(w, 'slots', three, undefined, ALICE);
      const spans = answer.results.map((r) => r.output.stdout.trim().split('\n').map(BigInt)).sort((x, y) => (x[0] < y[0] ? -1 : 1));
      for (let i = 1; i < spans.length; i++) assert.ok(spans[i][0] >= spans[i - 1][1], 'no two runs overlapped');
      // While a long run holds the slot, another conversation of the same user is refused.
      const long = call(w, 'slow', [{ id: 's', name: 'bash_tool', args: { command: 'sleep 1.5' } }], undefined, ALICE);
      await new Promise((r) => setTimeout(r, 500));
      const busy = await api(w, '/conversations/other/tool-calls', { method: 'POST', body: JSON.stringify({ calls: [three[0]] }) }, ALICE);
      assert.equal(busy.status, 429);
      assert.equal((await busy.json()).error.code, 'too_many_runs');
      assert.equal((await one(w, 'other', 'bash_tool', { command: 'true' }, undefined, BOB)).status, 'success', 'Bob\'s slots are his');
      await long;
      assert.equal((await one(w, 'other', 'bash_tool', { command: 'true' }, undefined, ALICE)).status, 'success', 'the slot is back');
    } finally {
      await w.stop();
    }
  });
});

describe('codeapi\'s production auth: a token per sandbox request, per user', () => {
  test('a batch that outlives its token\'s reuse window is sent with a fresh one: no call carries an expired token', async () => {
    const { sb, env } = await jwtSandbox();
    // A 5 s token (reused for 2 s at most: its iat is a whole second); one slot, so the three runs of the batch
    // go one after another, the third over 2 s in.
    const w = await worker(sb, 'codeapi', DECLARED, undefined, { ...env, SANDBOX_JWT_TTL_S: '5', MAX_CONCURRENT_RUNS: '1' });
    try {
      const calls = ['a', 'b', 'c'].map((id) => ({ id, name: 'bash_tool', args: { command: 'date +%s.%N; sleep 1.1' } }));
      const answer = await call(w, 'slow-batch', calls, undefined, ALICE);
      assert.deepEqual(answer.results.map((r) => r.status), ['success', 'success', 'success']);
      const started = answer.results.map((r) => Number(r.output.stdout.trim())).sort((x, y) => x - y);
      const tokens = sb.codeapiTokens;
      assert.equal(tokens.length, 3, 'one exec each');
      // The runs went one after another, each with the token it arrived with (in that order).
      tokens.forEach(({ claims }, i) => assert.ok(started[i] < claims.exp, `run ${i} began at ${started[i]}, after its token's exp ${claims.exp}`));
      assert.notEqual(tokens[2].claims.jti, tokens[0].claims.jti, 'the last run, 2.2 s in, has a token minted for it');
    } finally {
      await w.stop();
      await sb.close();
    }
  });

  for (const type of ['ed25519', 'rsa']) {
    test(`${type}: every sandbox request carries a fresh token naming its caller; codeapi keeps users apart`, async () => {
      const { privateKey, publicKey } = generateKeyPairSync(type, type === 'rsa' ? { modulusLength: 2048 } : {});
      const sb = await startSandbox({ log: () => {}, codeapiJwt: { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), kid: 'worker-key' } });
      const w = await worker(sb, 'codeapi', DECLARED, undefined, {
        SANDBOX_AUTH: 'codeapi-jwt',
        SANDBOX_CREDENTIAL: '',
        SANDBOX_JWT_KID: 'worker-key',
        SANDBOX_JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      });
      try {
        const made = await one(w, 'jwt', 'create_file', { file_path: '/mnt/data/a.txt', content: 'A\n' }, undefined, ALICE);
        assert.equal(made.status, 'success', JSON.stringify(made.error));
        assert.equal((await one(w, 'jwt', 'bash_tool', { command: 'cat /mnt/data/a.txt' }, undefined, ALICE)).output.stdout, 'A\n');
        assert.equal((await api(w, '/conversations/jwt/files/a.txt', {}, ALICE)).status, 200);
        assert.equal((await api(w, '/conversations/jwt/files/up.txt', { method: 'PUT', body: 'U' }, BOB)).status, 200);
        const tokens = sb.codeapiTokens;
        assert.equal(tokens.length, 4, 'exec, exec, download, upload: each one token');
        // The sandbox's user is the worker's subject for the caller (a hash with the issuer), never the `sub` as it is.
        assert.deepEqual(tokens.map((t) => t.claims.sub), [await sandboxSubject('', ALICE), await sandboxSubject('', ALICE), await sandboxSubject('', ALICE), await sandboxSubject('', BOB)]);
        assert.match(tokens[0].claims.sub, /^csgw_[A-Za-z0-9_-]{43}$/);
        assert.equal(tokens[0].claims.tenant_id, undefined, 'no tenant unless SANDBOX_JWT_TENANT says');
        assert.equal(new Set(tokens.map((t) => t.claims.jti)).size, 4, 'a fresh jti each');
        for (const { header, claims } of tokens) {
          assert.equal(header.alg, type === 'rsa' ? 'RS256' : 'EdDSA');
          assert.equal(header.kid, 'worker-key');
          assert.equal(claims.iss, 'librechat');
          assert.equal(claims.aud, 'codeapi');
          assert.equal(claims.principal_source, 'librechat_jwt');
          assert.match(claims.auth_context_hash, /^[0-9a-f]{64}$/);
          assert.ok(claims.exp - claims.iat <= 300 && claims.nbf === claims.iat);
          assert.ok(Math.abs(claims.iat - Date.now() / 1000) < 30, 'minted now');
        }
        assert.notEqual(tokens[0].claims.auth_context_hash, tokens[3].claims.auth_context_hash);
        // codeapi itself refuses Bob a read of Alice's file: the users are two at the sandbox too.
        const alices = JSON.parse(await snapshotText(w, 'jwt', ALICE)).partitions[0][1].files[0];
        // token.mjs imports jose from the worker's node_modules, which the harness installs first.
        const { mintToken } = await import('../../worker/token.mjs');
        const bobs = await mintToken({
          privateKey,
          kid: 'worker-key',
          alg: type === 'rsa' ? 'RS256' : 'EdDSA',
          sub: await sandboxSubject('', BOB),
          issuer: 'librechat',
          audience: 'codeapi',
          ttlSeconds: 300,
          claims: { jti: 'test-jti', nbf: Math.floor(Date.now() / 1000), principal_source: 'librechat_jwt', auth_context_hash: 'h' },
        });
        const read = await fetch(`${sb.codeapiUrl}/download/${alices.storage_session_id}/${alices.id}?kind=user&id=${encodeURIComponent(BOB)}`, { headers: { authorization: `Bearer ${bobs}` } });
        assert.equal(read.status, 403);
      } finally {
        await w.stop();
        await sb.close();
      }
    });
  }

  test('a misconfigured codeapi-jwt worker is a 500 naming the setting', async () => {
    const cases = [
      [{ SANDBOX_AUTH: 'codeapi-jwt', SANDBOX_CREDENTIAL: '', SANDBOX_JWT_KID: 'k' }, /SANDBOX_JWT_PRIVATE_KEY/],
      [{ SANDBOX_AUTH: 'codeapi-jwt', SANDBOX_CREDENTIAL: '', SANDBOX_JWT_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----', SANDBOX_JWT_KID: 'k', SANDBOX_JWT_TTL_S: '600' }, /SANDBOX_JWT_TTL_S/],
      [{ SANDBOX_AUTH: 'jwt-please' }, /SANDBOX_AUTH/],
    ];
    for (const [env, message] of cases) {
      const w = await worker(box.sb, 'codeapi', DECLARED, undefined, env);
      try {
        const res = await api(w, '/conversations/x/files', {}, ALICE);
        const body = await res.json();
        assert.equal(res.status, 500, JSON.stringify(body));
        assert.equal(body.error.code, 'worker_settings');
        assert.match(body.error.message, message);
      } finally {
        await w.stop();
      }
    }
  });
});
