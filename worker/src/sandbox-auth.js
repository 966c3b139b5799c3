// How the worker proves to the sandbox who is asking. Two modes (`SANDBOX_AUTH`):
//
// - `static` (the default): one credential for every request, `SANDBOX_CREDENTIAL`, sent as
//   LibreCodeInterpreter's `x-api-key` or as a Bearer token (codeapi's unauthenticated modes). The
//   sandbox then sees one identity for every user: the worker alone keeps users apart.
// - `codeapi-jwt`: codeapi's production auth. Per sandbox request the worker mints a short-lived token
//   for the caller, as LibreChat's own host does (`sub` the caller, a fresh `jti`, `exp` at most 300 s
//   after `iat`, `principal_source`, `auth_context_hash`), signed with `SANDBOX_JWT_PRIVATE_KEY` (PKCS#8
//   PEM: Ed25519 → EdDSA, RSA → RS256) under `SANDBOX_JWT_KID`. codeapi then keeps each user's files,
//   rate limits and quotas apart itself. Signing is `jose`'s, never ours.
//
// Either way the sandbox's user is not the caller's `sub` as it is, but a subject of the worker's own
// (`sandboxSubject`): a hash of the issuer the worker trusts and the `sub`, so that on a sandbox shared with
// LibreChat or another worker no caller can be another system's user by choosing a `sub`. With
// `SANDBOX_JWT_TENANT` the minted tokens also carry codeapi's `tenant_id`: the storage namespace of every
// file, rate limit and quota the sandbox keeps for them.
import { SignJWT, importPKCS8 } from 'jose';
import { Refusal } from './errors.js';
import { pemAlgorithm } from './keys.js';

/** codeapi refuses a token whose `exp` is more than 300 s after its `iat`. */
export const MAX_SANDBOX_JWT_TTL_S = 300;
/** The algorithms codeapi verifies. */
const SIGNING_ALGS = ['EdDSA', 'RS256'];

/** A setting the worker cannot use: named, its value never repeated (`detail` goes to the log only). */
const unusable = (message, detail) => new Refusal(500, 'worker_settings', message, {}, detail === undefined ? {} : { detail });
/** codeapi's tenant ids: what its storage namespace is keyed on. */
const TENANT = /^[A-Za-z0-9._:-]{1,128}$/;
/** What the worker's sandbox subjects start with: no LibreChat user id (a 24-digit hex) looks like one. */
export const SUBJECT_PREFIX = 'csgw_';

/**
 * The sandbox's user for a caller: `csgw_` and the SHA-256 (base64url) of the issuer the worker trusts
 * (AUTH_ISSUER; '' for a secret's single issuer) and the caller's `sub`. The same caller is always the same
 * sandbox user; no `sub` of another issuer, nor another system's user id, is.
 * @param {string} issuer
 * @param {string} sub
 */
export async function sandboxSubject(issuer, sub) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(['code-session-gate-worker/subject', issuer, sub])));
  let bin = '';
  for (const b of new Uint8Array(digest)) bin += String.fromCharCode(b);
  return SUBJECT_PREFIX + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * @typedef {{ mode: 'static', credential: string | undefined }
 *   | { mode: 'codeapi-jwt', privateKeyPem: string, kid: string, ttlSeconds: number, issuer: string, audience: string, tenant?: string }} SandboxAuth
 */

/**
 * The sandbox auth the environment configures; a 500 naming the setting that is wrong.
 * @param {Record<string, any>} env
 * @param {'codeapi' | 'librecodeinterpreter'} dialect
 * @returns {SandboxAuth}
 */
export function sandboxAuthFrom(env, dialect) {
  const mode = env.SANDBOX_AUTH || 'static';
  if (mode === 'static') return { mode, credential: env.SANDBOX_CREDENTIAL || undefined };
  if (mode !== 'codeapi-jwt') throw unusable('SANDBOX_AUTH must be static or codeapi-jwt');
  if (dialect !== 'codeapi') throw unusable('SANDBOX_AUTH = "codeapi-jwt" needs SANDBOX_DIALECT = "codeapi"');
  if (env.SANDBOX_CREDENTIAL) throw unusable('SANDBOX_CREDENTIAL is not used with SANDBOX_AUTH = "codeapi-jwt": unset it (the worker mints a token per request)');
  const privateKeyPem = env.SANDBOX_JWT_PRIVATE_KEY;
  if (typeof privateKeyPem !== 'string' || !privateKeyPem.includes('PRIVATE KEY')) {
    throw unusable('SANDBOX_JWT_PRIVATE_KEY (secret) must be a PKCS#8 PEM private key (Ed25519 or RSA)');
  }
  const kid = env.SANDBOX_JWT_KID;
  if (typeof kid !== 'string' || kid.trim() === '') throw unusable('SANDBOX_JWT_KID must name the key codeapi verifies the tokens with');
  const ttlSeconds = Number(env.SANDBOX_JWT_TTL_S ?? MAX_SANDBOX_JWT_TTL_S);
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_SANDBOX_JWT_TTL_S) {
    throw unusable(`SANDBOX_JWT_TTL_S must be a whole number of seconds from 1 to ${MAX_SANDBOX_JWT_TTL_S}`);
  }
  const tenant = env.SANDBOX_JWT_TENANT || undefined;
  if (tenant !== undefined && (typeof tenant !== 'string' || !TENANT.test(tenant))) {
    throw unusable('SANDBOX_JWT_TENANT must be 1 to 128 characters of A-Z a-z 0-9 . _ : -');
  }
  return {
    mode,
    privateKeyPem,
    kid,
    ttlSeconds,
    issuer: env.SANDBOX_JWT_ISSUER || 'librechat',
    audience: env.SANDBOX_JWT_AUDIENCE || 'codeapi',
    ...(tenant !== undefined ? { tenant } : {}),
  };
}

/** @type {Map<string, Promise<{ alg: string, key: CryptoKey }>>} one import per key, per isolate */
const signingKeys = new Map();

/** @param {string} pem */
function signingKey(pem) {
  let found = signingKeys.get(pem);
  if (found === undefined) {
    found = (async () => {
      const text = pem.replace(/\\n/g, '\n').trim();
      const alg = pemAlgorithm(text);
      if (alg === undefined || !SIGNING_ALGS.includes(alg)) {
        throw unusable(`SANDBOX_JWT_PRIVATE_KEY is not a PKCS#8 private key of ${SIGNING_ALGS.join(' or ')} (Ed25519 or RSA)`);
      }
      try {
        return { alg, key: await importPKCS8(text, alg) };
      } catch (e) {
        throw unusable(`SANDBOX_JWT_PRIVATE_KEY cannot be read as a ${alg} key`, /** @type {Error} */ (e).message);
      }
    })();
    found.catch(() => signingKeys.delete(pem));
    signingKeys.set(pem, found);
  }
  return found;
}

/**
 * `auth_context_hash`: names the worker's identity provider and the user, stably and without any
 * secret (SHA-256, hex), so that codeapi's logs can group one user's requests.
 * @param {{ issuer: string, audience: string }} auth @param {string} user
 */
async function contextHash(auth, user) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(['code-session-gate-worker', auth.issuer, auth.audience, user])));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A codeapi token for the sandbox user `user` (a `sandboxSubject`), valid from `nowMs` for the configured
 * lifetime.
 * @param {Extract<SandboxAuth, { mode: 'codeapi-jwt' }>} auth
 * @param {string} user
 * @param {number} [nowMs]
 */
export async function mintSandboxToken(auth, user, nowMs = Date.now()) {
  const { alg, key } = await signingKey(auth.privateKeyPem);
  const now = Math.floor(nowMs / 1000);
  const claims = { principal_source: 'librechat_jwt', auth_context_hash: await contextHash(auth, user), ...(auth.tenant !== undefined ? { tenant_id: auth.tenant } : {}) };
  return new SignJWT(claims)
    .setProtectedHeader({ alg, kid: auth.kid, typ: 'JWT' })
    .setIssuer(auth.issuer)
    .setAudience(auth.audience)
    .setSubject(user)
    .setJti(crypto.randomUUID())
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + auth.ttlSeconds)
    .sign(key);
}

/**
 * The credential for one sandbox request made for `user`: the static one, or a token minted now.
 * @param {SandboxAuth} auth
 * @param {string} user
 * @returns {Promise<string | undefined>}
 */
export function sandboxCredential(auth, user) {
  return auth.mode === 'static' ? Promise.resolve(auth.credential) : mintSandboxToken(auth, user);
}

/**
 * How long a credential `sandboxCredential` answers stays valid, in ms: a minted token's lifetime
 * (SANDBOX_JWT_TTL_S); `undefined` for a static one, which does not expire.
 * @param {SandboxAuth} auth
 */
export function credentialLifetimeMs(auth) {
  return auth.mode === 'static' ? undefined : auth.ttlSeconds * 1000;
}
