// codeapi's production auth, imitated closely enough to test a host against it: LibreChat's short-lived
// per-request JWT (EdDSA or RS256 under a `kid`; `iss`, `aud`, `sub`, `jti`, `iat`, `nbf`, `exp` at most
// 300 s after `iat`, `principal_source`, `auth_context_hash`), verified with node:crypto against the public
// key it was started with. Off unless `startSandbox({ codeapiJwt })` asks for it: then every codeapi
// request must carry such a token, and the verified `sub` is the user. Every token accepted is recorded
// (claims and header), so a test can check what a host minted.
import { createPublicKey, verify } from 'node:crypto';

/** codeapi's clock skew and its cap on a token's lifetime. */
const SKEW_S = 30;
const MAX_TTL_S = 300;
const ALGS = new Set(['EdDSA', 'RS256']);

/**
 * @typedef {object} JwtSettings
 * @property {string} publicKeyPem  SPKI PEM (Ed25519 or RSA)
 * @property {string} kid
 * @property {string} [issuer]      default `librechat`
 * @property {string} [audience]    default `codeapi`
 */

/** A refusal with codeapi's 401 body. @param {string} reason */
const refused = (reason) => Object.assign(new Error(reason), { status: 401, body: { error: 'Unauthorized', reason } });

const segment = (s) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));

/**
 * A verifier for `settings`: `(token) => claims`, throwing a refusal (`status`, `body`) on any fault.
 * @param {JwtSettings} settings
 */
export function jwtVerifier(settings) {
  const key = createPublicKey(settings.publicKeyPem);
  const issuer = settings.issuer ?? 'librechat';
  const audience = settings.audience ?? 'codeapi';
  /** @type {{ header: any, claims: any }[]} */
  const accepted = [];
  /** @param {string} token */
  function check(token) {
    const parts = token.split('.');
    if (parts.length !== 3) throw refused('malformed');
    let header;
    let claims;
    try {
      header = segment(parts[0]);
      claims = segment(parts[1]);
    } catch {
      throw refused('malformed');
    }
    if (!ALGS.has(header.alg)) throw refused('wrong_alg');
    if (header.kid !== settings.kid) throw refused('unknown_kid');
    const ok = verify(header.alg === 'RS256' ? 'RSA-SHA256' : null, Buffer.from(`${parts[0]}.${parts[1]}`), key, Buffer.from(parts[2], 'base64url'));
    if (!ok) throw refused('bad_signature');
    const now = Math.floor(Date.now() / 1000);
    for (const name of ['iss', 'sub', 'jti', 'principal_source', 'auth_context_hash']) {
      if (typeof claims[name] !== 'string' || claims[name].trim() === '') throw refused('malformed_claims');
    }
    for (const name of ['iat', 'nbf', 'exp']) if (typeof claims[name] !== 'number') throw refused('malformed_claims');
    if (claims.iss !== issuer) throw refused('wrong_issuer');
    if (!(claims.aud === audience || (Array.isArray(claims.aud) && claims.aud.includes(audience)))) throw refused('wrong_audience');
    if (claims.principal_source !== 'librechat_jwt' && claims.principal_source !== 'openid_reuse') throw refused('malformed_claims');
    if (claims.exp <= now - SKEW_S) throw refused('expired');
    if (claims.nbf > now + SKEW_S) throw refused('not_yet_valid');
    if (claims.iat > now + SKEW_S) throw refused('future_iat');
    if (claims.exp <= claims.iat || claims.exp - claims.iat > MAX_TTL_S) throw refused('ttl_too_long');
    accepted.push({ header, claims });
    if (accepted.length > 1000) accepted.shift();
    return claims;
  }
  return { check, accepted };
}
