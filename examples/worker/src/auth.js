// Who is calling: every route needs `Authorization: Bearer <JWT>`, signed HS256 with the worker's secret
// `WORKER_AUTH_SECRET`. The signature and the time claims are checked by `jose` (a maintained library
// that runs in workerd on WebCrypto), never by hand; this module only states the policy. Fails closed: no
// secret configured is a 500 for every request, never an open worker.
import { errors, jwtVerify } from 'jose';
import { Refusal } from './errors.js';

/** Seconds of clock difference tolerated between the token's issuer and the worker. */
export const CLOCK_SKEW_S = 60;
/** How far ahead a token's `exp` may be: a leaked token is useful for a day at most. */
export const MAX_LIFETIME_S = 24 * 60 * 60;
/** The user id: it names the user's conversations and becomes the sandbox's `user_id`. */
export const SUBJECT = /^[A-Za-z0-9._:@-]{1,128}$/;
/** An HS256 key shorter than the hash (32 bytes) weakens it; refuse to run with one. */
const MIN_SECRET_BYTES = 32;

/** A 401 answer: RFC 6750's challenge, and a stable code for what was wrong. */
const unauthorized = (code, message) =>
  new Refusal(401, code, message, { 'www-authenticate': 'Bearer error="invalid_token"' });

/**
 * The verification key, from `WORKER_AUTH_SECRET`; a `Refusal` (500) when it is missing or too short.
 * @param {Record<string, unknown>} env
 */
export function secretOf(env) {
  const secret = env.WORKER_AUTH_SECRET;
  if (typeof secret !== 'string' || secret === '') {
    throw new Refusal(500, 'auth_not_configured', 'WORKER_AUTH_SECRET is not set: the worker refuses every request until it is (npx wrangler secret put WORKER_AUTH_SECRET)');
  }
  const key = new TextEncoder().encode(secret);
  if (key.length < MIN_SECRET_BYTES) {
    throw new Refusal(500, 'auth_not_configured', `WORKER_AUTH_SECRET is shorter than ${MIN_SECRET_BYTES} bytes: set a longer random secret`);
  }
  return key;
}

/** jose's refusal → our code. Messages are jose's own; none of them quote the token. */
function fromJose(e) {
  if (e instanceof errors.JWTExpired) return unauthorized('token_expired', 'the token has expired');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'nbf') return unauthorized('token_not_yet_valid', 'the token is not valid yet (nbf)');
    if (e.claim === 'aud') return unauthorized('wrong_audience', 'the token is not meant for this worker (aud)');
    return unauthorized('invalid_claims', `the token's claims are refused: ${e.message}`);
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return unauthorized('invalid_token', 'the token must be signed with HS256');
  if (e instanceof errors.JWSSignatureVerificationFailed) return unauthorized('invalid_token', 'the token\'s signature does not verify');
  return unauthorized('invalid_token', 'the token is not a well-formed HS256 JWT');
}

/**
 * The caller's user id (`sub`), from the request's bearer token; throws a `Refusal` (401, or 500 for
 * a missing secret) otherwise.
 * @param {Request} request
 * @param {Record<string, unknown>} env `WORKER_AUTH_SECRET`, and `AUTH_AUDIENCE` when tokens must name it
 * @param {number} [nowMs] the clock, for tests
 * @returns {Promise<string>}
 */
export async function authenticate(request, env, nowMs = Date.now()) {
  const key = secretOf(env);
  const header = request.headers.get('authorization');
  if (header === null) throw unauthorized('missing_token', 'Authorization: Bearer <token> is required');
  const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  if (!m) throw unauthorized('invalid_scheme', 'the Authorization header must be Bearer <token>');
  const audience = typeof env.AUTH_AUDIENCE === 'string' && env.AUTH_AUDIENCE !== '' ? env.AUTH_AUDIENCE : undefined;
  let payload;
  try {
    ({ payload } = await jwtVerify(m[1], key, {
      algorithms: ['HS256'],
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['sub', 'exp'],
      currentDate: new Date(nowMs),
      ...(audience !== undefined ? { audience } : {}),
    }));
  } catch (e) {
    throw fromJose(e);
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
  return payload.sub;
}
