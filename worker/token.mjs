#!/usr/bin/env node
// Tokens for the worker's callers, as an identity provider would mint them, for every way the worker can
// verify them: HS256 JWTs signed with the key WORKER_AUTH_SECRET stands for, or EdDSA / ES256 / RS256 JWTs
// signed with a private key (PKCS#8 PEM) whose public half the worker has (WORKER_AUTH_JWKS or
// WORKER_AUTH_PUBLIC_KEY); and the JWKS or public key to configure from a PEM. For the demo, the tests and
// your own scripts; a deployment's tokens come from whatever signs in your users. Signing is jose's.
//
//   WORKER_AUTH_SECRET=… node token.mjs <user> [--ttl S] [--audience AUD] [--issuer ISS] [--scope S]
//   node token.mjs <user> --key private.pem [--kid KID] [--ttl S] [--audience AUD] [--issuer ISS] [--scope S]
//   node token.mjs --new-secret                     # a fresh WORKER_AUTH_SECRET (32 random bytes)
//   node token.mjs --new-key ed25519|p256|rsa       # a fresh private key (PKCS#8 PEM) to sign tokens with
//   node token.mjs --jwks key.pem [--kid KID]       # the JWKS for WORKER_AUTH_JWKS, from a private or public PEM
//   import { mintToken, newSecret } from './token.mjs';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SignJWT, exportJWK } from 'jose';
import { decodeSecret } from './src/auth.js';
import { pemAlgorithm } from './src/keys.js';

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

/**
 * The JWKS (`{ keys: [JWK] }`) that verifies tokens of a PEM key: its public half, with `alg`, `use` and `kid`.
 * @param {string} pem a PKCS#8 private or SPKI public key (Ed25519, P-256 or RSA)
 * @param {string} [kid]
 */
export async function jwksFromPem(pem, kid) {
  const alg = pemAlgorithm(pem);
  if (alg === undefined) throw new Error('not a PEM key of Ed25519, P-256 or RSA');
  const publicKey = pem.includes('PRIVATE KEY') ? createPublicKey(createPrivateKey(pem)) : createPublicKey(pem);
  const jwk = await exportJWK(publicKey);
  return { keys: [{ ...jwk, alg, use: 'sig', ...(kid !== undefined ? { kid } : {}) }] };
}

/** A fresh private key as PKCS#8 PEM. @param {'ed25519' | 'p256' | 'rsa'} type */
export function newKey(type) {
  const { privateKey } =
    type === 'ed25519' ? generateKeyPairSync('ed25519') : type === 'p256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const usage = [
    'usage: WORKER_AUTH_SECRET=… token.mjs <user> [--ttl SECONDS] [--audience AUD] [--issuer ISS] [--scope SCOPE]',
    '       token.mjs <user> --key private.pem [--kid KID] [--ttl SECONDS] [--audience AUD] [--issuer ISS] [--scope SCOPE]',
    '       token.mjs --new-secret',
    '       token.mjs --new-key ed25519|p256|rsa',
    '       token.mjs --jwks key.pem [--kid KID]',
  ].join('\n');
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        ttl: { type: 'string', default: '3600' },
        audience: { type: 'string' },
        issuer: { type: 'string' },
        scope: { type: 'string' },
        key: { type: 'string' },
        kid: { type: 'string' },
        jwks: { type: 'string' },
        'new-secret': { type: 'boolean' },
        'new-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`${/** @type {Error} */ (e).message}\n${usage}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  if (values['new-secret']) {
    console.log(newSecret());
    process.exit(0);
  }
  if (values['new-key'] !== undefined) {
    if (!['ed25519', 'p256', 'rsa'].includes(values['new-key'])) {
      console.error(`--new-key takes ed25519, p256 or rsa\n${usage}`);
      process.exit(2);
    }
    process.stdout.write(newKey(/** @type {'ed25519' | 'p256' | 'rsa'} */ (values['new-key'])));
    process.exit(0);
  }
  if (values.jwks !== undefined) {
    console.log(JSON.stringify(await jwksFromPem(readFileSync(values.jwks, 'utf8'), values.kid)));
    process.exit(0);
  }
  const common = { sub: positionals[0], ttlSeconds: Number(values.ttl), audience: values.audience, issuer: values.issuer, scope: values.scope };
  if (positionals.length !== 1) {
    console.error(usage);
    process.exit(2);
  }
  if (values.key !== undefined) {
    const pem = readFileSync(values.key, 'utf8');
    const alg = pemAlgorithm(pem);
    if (alg === undefined || !pem.includes('PRIVATE KEY')) {
      console.error('--key takes a PKCS#8 private key (PEM) of Ed25519, P-256 or RSA');
      process.exit(2);
    }
    console.log(await mintToken({ ...common, privateKey: createPrivateKey(pem), alg, kid: values.kid }));
    process.exit(0);
  }
  const secret = process.env.WORKER_AUTH_SECRET;
  if (!secret) {
    console.error(`WORKER_AUTH_SECRET is not set (or give --key private.pem)\n${usage}`);
    process.exit(2);
  }
  console.log(await mintToken({ secret, ...common }));
}
