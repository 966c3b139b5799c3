#!/usr/bin/env node
// Tokens for the worker's callers, as an identity provider would mint them: HS256 JWTs signed with the
// worker's WORKER_AUTH_SECRET (with `jose`, as the worker verifies them). For the demo, the tests and
// your own scripts; a deployment's tokens come from whatever signs in your users.
//
//   WORKER_AUTH_SECRET=… node examples/worker/token.mjs <user> [--ttl SECONDS] [--audience AUD]
//   import { mintToken, newSecret } from './token.mjs';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';

/** A fresh random secret: 32 bytes, as base64url (43 characters). */
export const newSecret = () => randomBytes(32).toString('base64url');

/**
 * A signed token for `sub`, valid from now for `ttlSeconds`. `claims` adds or replaces claims (a key set
 * to `undefined` is left out) and `alg` picks another HMAC: the tests forge tokens the worker must refuse.
 * @param {{ secret: string, sub?: string, ttlSeconds?: number, audience?: string, nowSeconds?: number,
 *   alg?: 'HS256' | 'HS384' | 'HS512', claims?: Record<string, unknown> }} o
 * @returns {Promise<string>}
 */
export function mintToken({ secret, sub, ttlSeconds = 3600, audience, nowSeconds = Math.floor(Date.now() / 1000), alg = 'HS256', claims = {} }) {
  const payload = Object.fromEntries(
    Object.entries({ sub, aud: audience, iat: nowSeconds, exp: nowSeconds + ttlSeconds, ...claims }).filter(([, v]) => v !== undefined),
  );
  return new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { ttl: { type: 'string', default: '3600' }, audience: { type: 'string' } } });
  const secret = process.env.WORKER_AUTH_SECRET;
  if (!secret || positionals.length !== 1) {
    console.error('usage: WORKER_AUTH_SECRET=… token.mjs <user> [--ttl SECONDS] [--audience AUD]');
    process.exit(2);
  }
  console.log(await mintToken({ secret, sub: positionals[0], ttlSeconds: Number(values.ttl), audience: values.audience }));
}
