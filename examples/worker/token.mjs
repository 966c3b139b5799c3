#!/usr/bin/env node
// Tokens for the worker's callers, as an identity provider would mint them: HS256 JWTs signed with the
// key WORKER_AUTH_SECRET stands for (with `jose`, as the worker verifies them), or, given a private key,
// EdDSA / ES256 / RS256 JWTs for a worker that verifies with WORKER_AUTH_JWKS or WORKER_AUTH_PUBLIC_KEY.
// For the demo, the tests and your own scripts; a deployment's tokens come from whatever signs in your users.
//
//   WORKER_AUTH_SECRET=… node examples/worker/token.mjs <user> [--ttl S] [--audience AUD] [--issuer ISS] [--scope S]
//   node examples/worker/token.mjs --new-secret      # prints a fresh WORKER_AUTH_SECRET (32 random bytes)
//   import { mintToken, newSecret } from './token.mjs';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { decodeSecret } from './src/auth.js';

/** A fresh random secret: 32 bytes, as base64url (43 characters). */
export const newSecret = () => randomBytes(32).toString('base64url');

/**
 * A signed token for `sub`, valid from now for `ttlSeconds`. `claims` adds or replaces claims (a key set
 * to `undefined` is left out). With `secret` it is HS256 (`alg` picks another HMAC) signed with the bytes
 * the secret stands for (its text's own bytes when it is not base64 or hex: the tests forge tokens the
 * worker must refuse); with `privateKey` (a `CryptoKey` or `KeyObject`) it is `alg` (EdDSA, ES256,
 * RS256) with header `kid`.
 * @param {{ secret?: string, privateKey?: any, kid?: string, sub?: string, ttlSeconds?: number, audience?: string,
 *   issuer?: string, scope?: string, nowSeconds?: number, alg?: string, claims?: Record<string, unknown> }} o
 * @returns {Promise<string>}
 */
export function mintToken({ secret, privateKey, kid, sub, ttlSeconds = 3600, audience, issuer, scope, nowSeconds = Math.floor(Date.now() / 1000), alg, claims = {} }) {
  const payload = Object.fromEntries(
    Object.entries({ sub, aud: audience, iss: issuer, scope, iat: nowSeconds, exp: nowSeconds + ttlSeconds, ...claims }).filter(([, v]) => v !== undefined),
  );
  if (privateKey !== undefined) {
    return new SignJWT(payload).setProtectedHeader({ alg: alg ?? 'EdDSA', typ: 'JWT', ...(kid !== undefined ? { kid } : {}) }).sign(privateKey);
  }
  if (secret === undefined) throw new Error('mintToken: a secret or a private key is required');
  const key = decodeSecret(secret) ?? new TextEncoder().encode(secret);
  return new SignJWT(payload).setProtectedHeader({ alg: alg ?? 'HS256', typ: 'JWT' }).sign(key);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ttl: { type: 'string', default: '3600' },
      audience: { type: 'string' },
      issuer: { type: 'string' },
      scope: { type: 'string' },
      'new-secret': { type: 'boolean' },
    },
  });
  if (values['new-secret']) {
    console.log(newSecret());
    process.exit(0);
  }
  const secret = process.env.WORKER_AUTH_SECRET;
  if (!secret || positionals.length !== 1) {
    console.error('usage: WORKER_AUTH_SECRET=… token.mjs <user> [--ttl SECONDS] [--audience AUD] [--issuer ISS] [--scope SCOPE]\n       token.mjs --new-secret');
    process.exit(2);
  }
  console.log(await mintToken({ secret, sub: positionals[0], ttlSeconds: Number(values.ttl), audience: values.audience, issuer: values.issuer, scope: values.scope }));
}
