// Who is calling: every route needs `Authorization: Bearer <JWT>`. A deployment verifies its callers'
// tokens with any of three keys (worker/README.md, "The token"): an HS256 secret
// (`WORKER_AUTH_SECRET`), a JWKS (`WORKER_AUTH_JWKS`: EdDSA, ES256, RS256, picked by `kid`), or one public
// key (`WORKER_AUTH_PUBLIC_KEY`), so that a host's sign-in service can keep its private key. Signatures and
// time claims are checked by `jose` (a maintained library that runs in workerd on WebCrypto), never by
// hand; this module states the policy. Fails closed: no key configured is a 500 for every request.
import { createLocalJWKSet, errors, importJWK, importSPKI, jwtVerify } from 'jose';
import { Refusal } from './errors.js';
import { pemAlgorithm } from './keys.js';

/** Seconds of clock difference tolerated between the token's issuer and the worker. */
export const CLOCK_SKEW_S = 60;
/** How far ahead a token's `exp` may be: a leaked token is useful for a day at most. */
export const MAX_LIFETIME_S = 24 * 60 * 60;
/** The user id: it names the user's conversations and becomes the sandbox's user. */
export const SUBJECT = /^[A-Za-z0-9._:@-]{1,128}$/;
/** An HS256 key shorter than the hash (32 bytes) weakens it; refuse to run with one. */
export const MIN_SECRET_BYTES = 32;
/** The asymmetric algorithms a JWKS or public key may verify. */
export const PUBLIC_KEY_ALGS = ['EdDSA', 'ES256', 'RS256'];
/** The scope a host's token carries to prime skill and agent refs (never a user's token). */
export const PRIME_SCOPE = 'files:prime';

/** A 401 answer: RFC 6750's challenge, and a stable code for what was wrong. */
const unauthorized = (code, message) =>
  new Refusal(401, code, message, { 'www-authenticate': 'Bearer error="invalid_token"' });

/**
 * The worker cannot verify callers. The caller is not authenticated yet, so the answer says nothing of
 * the configuration: what is wrong (which setting) goes to the log under the request id.
 * @param {string} detail
 */
const notConfigured = (detail) =>
  new Refusal(500, 'auth_not_configured', 'the worker cannot verify callers: its caller authentication is not configured (its log names the setting under this request id)', {}, { detail });

/**
 * The bytes of a secret written as text: hex (an even number of hex digits) or base64 / base64url. A
 * secret is random bytes written down, never a password: text that is neither (spaces, a phrase) is
 * not a key. `null` when `text` is neither.
 * @param {string} text
 * @returns {Uint8Array | null}
 */
export function decodeSecret(text) {
  if (/^(?:[0-9a-fA-F]{2})+$/.test(text)) {
    return Uint8Array.from(text.match(/../g) ?? [], (h) => parseInt(h, 16));
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  try {
    const b64 = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * The HS256 key a secret text stands for; throws the 500 that names what is wrong with it.
 * @param {string} secret
 */
export function hs256Key(secret) {
  const key = decodeSecret(secret);
  if (key === null) {
    throw notConfigured('WORKER_AUTH_SECRET must be random bytes written as base64, base64url or hex (node worker/token.mjs --new-secret prints one)');
  }
  if (key.length < MIN_SECRET_BYTES) {
    throw notConfigured(`WORKER_AUTH_SECRET decodes to ${key.length} bytes; an HS256 key needs at least ${MIN_SECRET_BYTES}`);
  }
  if (key.every((b) => b === key[0])) throw notConfigured('WORKER_AUTH_SECRET decodes to one byte repeated: that is not a random key');
  return key;
}

/** A public key (PEM or JWK) and the algorithm it verifies. */
async function importPublicKey(text) {
  const trimmed = text.replace(/\\n/g, '\n').trim();
  if (trimmed.startsWith('{')) {
    let jwk;
    try {
      jwk = JSON.parse(trimmed);
    } catch {
      throw notConfigured('WORKER_AUTH_PUBLIC_KEY is neither a PEM public key nor a JWK');
    }
    const alg = jwk.alg ?? (jwk.kty === 'OKP' ? 'EdDSA' : jwk.kty === 'EC' ? 'ES256' : jwk.kty === 'RSA' ? 'RS256' : undefined);
    if (!PUBLIC_KEY_ALGS.includes(alg)) throw notConfigured(`WORKER_AUTH_PUBLIC_KEY's algorithm must be one of ${PUBLIC_KEY_ALGS.join(', ')}`);
    try {
      return { alg, key: await importJWK(jwk, alg) };
    } catch (e) {
      throw notConfigured(`WORKER_AUTH_PUBLIC_KEY cannot be read as a ${alg} key: ${/** @type {Error} */ (e).message}`);
    }
  }
  const alg = pemAlgorithm(trimmed);
  if (alg === undefined || !PUBLIC_KEY_ALGS.includes(alg)) {
    throw notConfigured(`WORKER_AUTH_PUBLIC_KEY is not a PEM public key (SPKI) of ${PUBLIC_KEY_ALGS.join(', ')}`);
  }
  try {
    return { alg, key: await importSPKI(trimmed, alg) };
  } catch (e) {
    throw notConfigured(`WORKER_AUTH_PUBLIC_KEY cannot be read as a ${alg} key: ${e.message}`);
  }
}

/**
 * @typedef {object} Verifier
 * @property {string[]} algorithms
 * @property {(header: { alg?: string, kid?: string }, token: any) => Promise<any>} key
 */

/** @type {Map<string, Promise<Verifier>>} keys imported once per isolate, per configuration */
const verifiers = new Map();

/**
 * The verification keys the worker's environment configures; a `Refusal` (500) when none is, or one is
 * unusable.
 * @param {Record<string, unknown>} env
 * @returns {Promise<Verifier>}
 */
export function verifierOf(env) {
  const secret = typeof env.WORKER_AUTH_SECRET === 'string' && env.WORKER_AUTH_SECRET !== '' ? env.WORKER_AUTH_SECRET : undefined;
  const jwksText = typeof env.WORKER_AUTH_JWKS === 'string' && env.WORKER_AUTH_JWKS.trim() !== '' ? env.WORKER_AUTH_JWKS : undefined;
  const publicKey = typeof env.WORKER_AUTH_PUBLIC_KEY === 'string' && env.WORKER_AUTH_PUBLIC_KEY.trim() !== '' ? env.WORKER_AUTH_PUBLIC_KEY : undefined;
  if (secret === undefined && jwksText === undefined && publicKey === undefined) {
    return Promise.reject(notConfigured('no key verifies callers: set WORKER_AUTH_SECRET, WORKER_AUTH_JWKS or WORKER_AUTH_PUBLIC_KEY (the worker refuses every request until one is set)'));
  }
  // Keys of an identity provider verify the tokens of every issuer that shares them (a JWKS can hold
  // several issuers' keys): without AUTH_ISSUER two issuers' equal `sub`s would be one user.
  if ((jwksText !== undefined || publicKey !== undefined) && setting(env.AUTH_ISSUER) === undefined) {
    return Promise.reject(notConfigured('AUTH_ISSUER is required with WORKER_AUTH_JWKS or WORKER_AUTH_PUBLIC_KEY: without it two issuers\' users of one sub would be one user'));
  }
  const cacheKey = JSON.stringify([secret, jwksText, publicKey]);
  let verifier = verifiers.get(cacheKey);
  if (verifier === undefined) {
    verifier = buildVerifier(secret, jwksText, publicKey);
    // A configuration that failed is tried again on the next request (a fixed secret needs no restart).
    verifier.catch(() => verifiers.delete(cacheKey));
    verifiers.set(cacheKey, verifier);
  }
  return verifier;
}

/** @returns {Promise<Verifier>} */
async function buildVerifier(secret, jwksText, publicKey) {
  const hs = secret === undefined ? undefined : hs256Key(secret);
  let jwks;
  if (jwksText !== undefined) {
    let parsed;
    try {
      parsed = JSON.parse(jwksText);
    } catch {
      throw notConfigured('WORKER_AUTH_JWKS is not JSON');
    }
    if (!Array.isArray(parsed?.keys) || parsed.keys.length === 0) throw notConfigured('WORKER_AUTH_JWKS must be a JWKS: { "keys": [ … ] }');
    try {
      jwks = createLocalJWKSet(parsed);
    } catch (e) {
      throw notConfigured(`WORKER_AUTH_JWKS is unusable: ${e.message}`);
    }
  }
  const single = publicKey === undefined ? undefined : await importPublicKey(publicKey);
  const algorithms = [...(hs ? ['HS256'] : []), ...(jwks ? PUBLIC_KEY_ALGS : single ? [single.alg] : [])];
  return {
    algorithms: [...new Set(algorithms)],
    async key(header, token) {
      if (header.alg === 'HS256' && hs) return hs;
      if (jwks) {
        // A JWKS answers by kid; the single public key is tried when no JWKS key matches.
        try {
          return await jwks(header, token);
        } catch (e) {
          if (!single) throw e;
        }
      }
      if (single && header.alg === single.alg) return single.key;
      throw new errors.JWKSNoMatchingKey();
    },
  };
}

/** jose's refusal → our code. Messages are ours or jose's own; none of them quote the token. */
function fromJose(e, algorithms) {
  if (e instanceof Refusal) return e;
  if (e instanceof errors.JWTExpired) return unauthorized('token_expired', 'the token has expired');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'nbf') return unauthorized('token_not_yet_valid', 'the token is not valid yet (nbf)');
    if (e.claim === 'aud') return unauthorized('wrong_audience', 'the token is not meant for this worker (aud)');
    if (e.claim === 'iss' && e.reason !== 'missing') return unauthorized('wrong_issuer', 'the token was not issued by the issuer this worker trusts (iss)');
    return unauthorized('invalid_claims', `the token's claims are refused: ${e.message}`);
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return unauthorized('invalid_token', `the token must be signed with ${algorithms.join(', ')}`);
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) {
    return unauthorized('invalid_token', 'no configured key verifies this token (its alg or kid)');
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return unauthorized('invalid_token', 'the token\'s signature does not verify');
  return unauthorized('invalid_token', 'the token is not a well-formed signed JWT');
}

/** The scopes a token grants (`scope`, RFC 8693: space-separated; or an array of strings). */
function scopesOf(payload) {
  const s = payload.scope;
  if (typeof s === 'string') return s.split(' ').filter(Boolean);
  if (Array.isArray(s) && s.every((x) => typeof x === 'string')) return s;
  if (s === undefined) return [];
  throw unauthorized('invalid_claims', 'scope must be a space-separated string or an array of strings');
}

/** A setting that is set, or `undefined`. @param {unknown} v */
const setting = (v) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The caller, from the request's bearer token: `{ user, issuer, scopes }` (`issuer`: AUTH_ISSUER, or ''
 * when a secret verifies callers without one: the secret's holder is the one issuer); throws a `Refusal` (401, or 500 when
 * no key is configured) otherwise.
 * @param {Request} request
 * @param {Record<string, unknown>} env the keys, `AUTH_ISSUER` and `AUTH_AUDIENCE` when tokens must name them
 * @param {number} [nowMs] the clock, for tests
 * @returns {Promise<{ user: string, issuer: string, scopes: string[] }>}
 */
export async function authenticate(request, env, nowMs = Date.now()) {
  const verifier = await verifierOf(env);
  const header = request.headers.get('authorization');
  if (header === null) throw unauthorized('missing_token', 'Authorization: Bearer <token> is required');
  const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  if (!m) throw unauthorized('invalid_scheme', 'the Authorization header must be Bearer <token>');
  const audience = setting(env.AUTH_AUDIENCE);
  const issuer = setting(env.AUTH_ISSUER);
  let payload;
  try {
    ({ payload } = await jwtVerify(m[1], verifier.key, {
      algorithms: verifier.algorithms,
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['sub', 'exp'],
      currentDate: new Date(nowMs),
      ...(audience !== undefined ? { audience } : {}),
      ...(issuer !== undefined ? { issuer } : {}),
    }));
  } catch (e) {
    throw fromJose(e, verifier.algorithms);
  }
  const now = nowMs / 1000;
  if (/** @type {number} */ (payload.exp) > now + MAX_LIFETIME_S + CLOCK_SKEW_S) {
    throw unauthorized('token_lifetime', `the token's exp is more than ${MAX_LIFETIME_S} s ahead`);
  }
  // jose checks `iat` only against a maximum age; one from the future is refused here.
  if (payload.iat !== undefined && payload.iat > now + CLOCK_SKEW_S) {
    throw unauthorized('token_not_yet_valid', 'the token was issued in the future (iat)');
  }
  if (typeof payload.sub !== 'string' || !SUBJECT.test(payload.sub)) {
    throw unauthorized('invalid_subject', 'sub must be 1 to 128 characters of A-Z a-z 0-9 . _ : @ -');
  }
  return { user: payload.sub, issuer: issuer ?? '', scopes: scopesOf(payload) };
}
