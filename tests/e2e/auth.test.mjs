// The worker as a service: every route refuses every unauthenticated or forged request before anything
// runs or is stored (issue 23), and a worker without its secret refuses everything. In workerd, against
// the local sandbox in both dialects.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DECLARED } from '../../worker/scenario.js';
import { DIALECTS, SECRET, USER, api, forge, one, useSandbox, sandboxRequests, snapshotText, tokenFor, worker } from './harness.mjs';

/** Every route, with a body where it takes one. */
const ROUTES = [
  ['GET', '/conversations/c'],
  ['POST', '/conversations/c/tool-calls', JSON.stringify({ calls: [{ id: 'x', name: 'bash_tool', args: { command: 'touch /mnt/data/ran' } }] })],
  ['GET', '/conversations/c/files'],
  ['POST', '/conversations/c/files', JSON.stringify({ files: [{ id: 'f', name: 'a.txt', storage_session_id: 's' }] })],
  ['PUT', '/conversations/c/files/up.txt', 'uploaded\n'],
  ['GET', '/conversations/c/files/kept.txt'],
  ['GET', '/nowhere'],
];

const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** Each way a request can fail authentication: [name, Authorization header (or null), expected code]. */
async function cases() {
  const valid = await tokenFor(USER);
  const [h, p, sig] = valid.split('.');
  const other = (await forge({ sub: 'someone-else' })).split('.')[2];
  return [
    ['no Authorization header', null, 'missing_token'],
    ['another scheme (Basic)', `Basic ${Buffer.from(`${USER}:${valid}`).toString('base64')}`, 'invalid_scheme'],
    ['Bearer without a token', 'Bearer', 'invalid_scheme'],
    ['a token that is not a JWT', 'Bearer not-a-jwt', 'invalid_token'],
    ['a malformed JWT', `Bearer ${h}.${p}`, 'invalid_token'],
    ['a bad signature (another token\'s)', `Bearer ${h}.${p}.${other}`, 'invalid_token'],
    ['a changed payload', `Bearer ${h}.${b64({ sub: 'admin', exp: now() + 600 })}.${sig}`, 'invalid_token'],
    ['another secret', `Bearer ${await forge({ sub: USER, secret: Buffer.from('another-secret-of-at-least-32-bytes!!').toString('base64') })}`, 'invalid_token'],
    ['the secret\'s text as the key (not the bytes it stands for)', `Bearer ${await forge({ sub: USER, secret: `not base64: ${SECRET}` })}`, 'invalid_token'],
    ['alg none', `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: USER, exp: now() + 600 })}.`, 'invalid_token'],
    ['alg HS512 with the right secret', `Bearer ${await forge({ sub: USER, alg: 'HS512' })}`, 'invalid_token'],
    ['expired past the 60 s skew', `Bearer ${await forge({ sub: USER, nowSeconds: now() - 3600, ttlSeconds: 3600 - 90 })}`, 'token_expired'],
    ['not yet valid past the skew (nbf)', `Bearer ${await forge({ sub: USER, claims: { nbf: now() + 120 } })}`, 'token_not_yet_valid'],
    ['issued in the future (iat)', `Bearer ${await forge({ sub: USER, claims: { iat: now() + 600 } })}`, 'token_not_yet_valid'],
    ['no exp', `Bearer ${await forge({ sub: USER, claims: { exp: undefined } })}`, 'invalid_claims'],
    ['exp more than 24 h ahead', `Bearer ${await forge({ sub: USER, ttlSeconds: 25 * 3600 })}`, 'token_lifetime'],
    ['no sub', `Bearer ${await forge({})}`, 'invalid_claims'],
    ['sub with a forbidden character', `Bearer ${await forge({ sub: 'a/b' })}`, 'invalid_subject'],
    ['sub of 129 characters', `Bearer ${await forge({ sub: 'u'.repeat(129) })}`, 'invalid_subject'],
    ['sub not a string', `Bearer ${await forge({ claims: { sub: 42 } })}`, 'invalid_subject'],
  ];
}

const box = useSandbox();

for (const dialect of DIALECTS) {
  describe(`authentication, ${dialect}`, () => {
    let w;
    before(async () => {
      w = await worker(box.sb, dialect, DECLARED);
    });
    after(async () => {
      await w?.stop();
    });

    test('every route × every 401 case: refused before anything runs, nothing stored, the token never echoed', async () => {
      // A conversation with a file in it: the refusals must leave it byte for byte as it is.
      assert.equal((await one(w, 'c', 'create_file', { file_path: '/mnt/data/kept.txt', content: 'k\n' })).status, 'success');
      const before = await snapshotText(w, 'c');
      const requestsBefore = await sandboxRequests(box.sb);
      let checked = 0;
      for (const [name, authorization, code] of await cases()) {
        for (const [method, path, body] of ROUTES) {
          const res = await api(w, path, { method, body, headers: authorization === null ? {} : { authorization } }, null);
          const text = await res.text();
          const what = `${name}: ${method} ${path}`;
          assert.equal(res.status, 401, `${what}: ${text}`);
          assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"', what);
          assert.equal(JSON.parse(text).error.code, code, `${what}: ${text}`);
          assert.equal(typeof JSON.parse(text).error.message, 'string');
          const token = authorization?.split(' ')[1];
          if (token) {
            assert.ok(!text.includes(token), `${what}: the token is echoed`);
            for (const part of token.split('.').filter((s) => s.length > 8)) assert.ok(!text.includes(part), `${what}: part of the token is echoed`);
          }
          checked++;
        }
      }
      assert.equal(checked, (await cases()).length * ROUTES.length);
      assert.deepEqual(await sandboxRequests(box.sb), requestsBefore, 'no refused request reached the sandbox');
      assert.equal(await snapshotText(w, 'c'), before, 'the stored session is unchanged');
      const valid = await tokenFor(USER);
      assert.ok(!w.output().includes(valid.split('.')[2]), 'no token in the worker\'s log');
    });

    test('the clock skew: 60 s either way is accepted', async () => {
      const late = await forge({ sub: USER, nowSeconds: now() - 3600, ttlSeconds: 3600 - 30 });
      const early = await forge({ sub: USER, claims: { nbf: now() + 30, iat: now() + 30 } });
      for (const token of [late, early]) {
        const res = await api(w, '/conversations/skew/files', { headers: { authorization: `Bearer ${token}` } }, null);
        assert.equal(res.status, 200, await res.text());
      }
    });
  });
}

describe('a worker configured for an audience, or without its secret', () => {
  test('AUTH_AUDIENCE: a token must name it', async () => {
    const w = await worker(box.sb, 'codeapi', DECLARED, undefined, { AUTH_AUDIENCE: 'gate-worker' });
    try {
      const cases = [
        [await forge({ sub: USER }), 401],
        [await forge({ sub: USER, audience: 'another-service' }), 401],
        [await forge({ sub: USER, audience: 'gate-worker' }), 200],
      ];
      for (const [token, status] of cases) {
        const res = await api(w, '/conversations/aud', { headers: { authorization: `Bearer ${token}` } }, null);
        const body = await res.text();
        assert.equal(res.status, status, body);
        if (status === 401) assert.equal(JSON.parse(body).error.code, 'wrong_audience');
      }
    } finally {
      await w.stop();
    }
  });

  test('no WORKER_AUTH_SECRET, or one that is no key: every route answers 500, the log (not the answer) names the setting', async () => {
    // Empty; too short; 32 spaces (text, not a key); 16 bytes as hex; 32 zero bytes as base64.
    for (const secret of ['', 'short', ' '.repeat(32), 'ab'.repeat(16), 'A'.repeat(43)]) {
      const w = await worker(box.sb, 'codeapi', DECLARED, undefined, { WORKER_AUTH_SECRET: secret });
      try {
        const requestsBefore = await sandboxRequests(box.sb);
        for (const [method, path, body] of ROUTES) {
          for (const authorization of [undefined, `Bearer ${await tokenFor(USER)}`]) {
            const res = await api(w, path, { method, body, headers: authorization ? { authorization } : {} }, null);
            const answer = await res.json();
            assert.equal(res.status, 500, `${method} ${path}`);
            assert.equal(answer.error.code, 'auth_not_configured');
            // Nothing of the configuration reaches a caller (who is not authenticated yet): not the
            // setting, not how many bytes it decodes to. The request id leads to the log line that says.
            assert.doesNotMatch(answer.error.message, /WORKER_AUTH|bytes|\d/);
            assert.equal(res.headers.get('x-request-id'), answer.error.requestId);
            await waitForLog(w, answer.error.requestId, /WORKER_AUTH_SECRET/);
          }
        }
        assert.deepEqual(await sandboxRequests(box.sb), requestsBefore);
      } finally {
        await w.stop();
      }
    }
    assert.ok(SECRET.length >= 32);
  });
});

/** Waits for the worker's log line of request `id` and checks it says `what`. */
async function waitForLog(w, id, what) {
  for (let i = 0; i < 50 && !w.output().includes(id); i++) await new Promise((r) => setTimeout(r, 20));
  const line = w.output().split('\n').find((l) => l.includes(id));
  assert.ok(line, `a log line for request ${id}`);
  assert.match(line, what);
}

describe('callers\' tokens as a deployment issues them: public keys, a JWKS, an issuer', () => {
  /** A key pair of `type`, its public half as a JWK with `kid`. */
  const pair = (type, kid, options = {}) => {
    const { privateKey, publicKey } = generateKeyPairSync(type, options);
    return { privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid } };
  };

  test('EdDSA and RS256 tokens against WORKER_AUTH_JWKS, picked by kid; ES256 against WORKER_AUTH_PUBLIC_KEY; AUTH_ISSUER checked', async () => {
    const ed = pair('ed25519', 'ed-1');
    const rsa = pair('rsa', 'rsa-1', { modulusLength: 2048 });
    const stranger = pair('ed25519', 'ed-1');
    const env = { WORKER_AUTH_SECRET: '', WORKER_AUTH_JWKS: JSON.stringify({ keys: [ed.jwk, rsa.jwk] }), AUTH_ISSUER: 'https://auth.example/', AUTH_AUDIENCE: 'gate-worker' };
    const sign = (key, alg, kid, claims = {}) => forge({ privateKey: key, alg, kid, sub: USER, issuer: 'https://auth.example/', audience: 'gate-worker', ...claims });
    const w = await worker(box.sb, 'codeapi', DECLARED, undefined, env);
    try {
      const cases = [
        ['EdDSA, its kid', await sign(ed.privateKey, 'EdDSA', 'ed-1'), 200],
        ['RS256, its kid', await sign(rsa.privateKey, 'RS256', 'rsa-1'), 200],
        ['EdDSA under the RSA key\'s kid', await sign(ed.privateKey, 'EdDSA', 'rsa-1'), 'invalid_token'],
        ['a key not in the set, same kid', await sign(stranger.privateKey, 'EdDSA', 'ed-1'), 'invalid_token'],
        ['an unknown kid', await sign(ed.privateKey, 'EdDSA', 'nobody'), 'invalid_token'],
        ['another issuer', await sign(ed.privateKey, 'EdDSA', 'ed-1', { issuer: 'https://evil.example/' }), 'wrong_issuer'],
        ['no issuer', await sign(ed.privateKey, 'EdDSA', 'ed-1', { issuer: undefined }), 'invalid_claims'],
        ['HS256 with the old secret (no secret configured)', await forge({ sub: USER, issuer: 'https://auth.example/', audience: 'gate-worker' }), 'invalid_token'],
      ];
      for (const [what, token, expected] of cases) {
        const res = await api(w, '/conversations/keys/files', { headers: { authorization: `Bearer ${token}` } }, null);
        const body = await res.json();
        if (expected === 200) assert.equal(res.status, 200, `${what}: ${JSON.stringify(body)}`);
        else assert.deepEqual([res.status, body.error.code], [401, expected], `${what}: ${JSON.stringify(body)}`);
      }
    } finally {
      await w.stop();
    }
    const ec = pair('ec', undefined, { namedCurve: 'P-256' });
    const single = await worker(box.sb, 'codeapi', DECLARED, undefined, { WORKER_AUTH_SECRET: '', WORKER_AUTH_PUBLIC_KEY: ec.publicKey.export({ type: 'spki', format: 'pem' }).toString(), AUTH_ISSUER: 'https://auth.example/' });
    try {
      const good = await forge({ privateKey: ec.privateKey, alg: 'ES256', sub: USER, issuer: 'https://auth.example/' });
      assert.equal((await api(single, '/conversations/ec/files', { headers: { authorization: `Bearer ${good}` } }, null)).status, 200);
      const other = await forge({ privateKey: pair('ec', undefined, { namedCurve: 'P-256' }).privateKey, alg: 'ES256', sub: USER, issuer: 'https://auth.example/' });
      assert.equal((await api(single, '/conversations/ec/files', { headers: { authorization: `Bearer ${other}` } }, null)).status, 401);
    } finally {
      await single.stop();
    }
  });

  test('an unusable key setting, or a JWKS or public key without AUTH_ISSUER, is a 500 the log names', async () => {
    const issuer = { AUTH_ISSUER: 'https://auth.example/' };
    const jwks = JSON.stringify({ keys: [pair('ed25519', 'k').jwk] });
    for (const [env, name] of [
      [{ WORKER_AUTH_SECRET: '', WORKER_AUTH_JWKS: 'not json', ...issuer }, /WORKER_AUTH_JWKS/],
      [{ WORKER_AUTH_SECRET: '', WORKER_AUTH_JWKS: '{"keys":[]}', ...issuer }, /WORKER_AUTH_JWKS/],
      [{ WORKER_AUTH_SECRET: '', WORKER_AUTH_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', ...issuer }, /WORKER_AUTH_PUBLIC_KEY/],
      // Two issuers whose keys share a JWKS would have one user for two equal `sub`s: the issuer is required.
      [{ WORKER_AUTH_SECRET: '', WORKER_AUTH_JWKS: jwks }, /AUTH_ISSUER/],
      [{ WORKER_AUTH_SECRET: '', WORKER_AUTH_PUBLIC_KEY: pair('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString() }, /AUTH_ISSUER/],
    ]) {
      const w = await worker(box.sb, 'codeapi', DECLARED, undefined, env);
      try {
        const res = await api(w, '/conversations/x/files');
        const body = await res.json();
        assert.equal(res.status, 500, JSON.stringify(body));
        assert.equal(body.error.code, 'auth_not_configured');
        assert.doesNotMatch(body.error.message, /WORKER_AUTH|AUTH_ISSUER|jose|RSA|bits/);
        await waitForLog(w, body.error.requestId, name);
      } finally {
        await w.stop();
      }
    }
  });

  test('a hex secret is its bytes', async () => {
    const hex = Buffer.from('0123456789abcdef0123456789abcdef').toString('hex');
    const w = await worker(box.sb, 'codeapi', DECLARED, undefined, { WORKER_AUTH_SECRET: hex });
    try {
      const token = await forge({ secret: hex, sub: USER });
      assert.equal((await api(w, '/conversations/hex/files', { headers: { authorization: `Bearer ${token}` } }, null)).status, 200);
    } finally {
      await w.stop();
    }
  });
});
