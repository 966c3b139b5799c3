// The worker's settings, from its environment (wrangler.toml `[vars]` and secrets), read once per
// Durable Object. A missing or unusable one is a 500 that names it: the worker never guesses.
import { Refusal } from './errors.js';
import { limitsFrom } from './limits.js';

const DIALECTS = ['codeapi', 'librecodeinterpreter'];

/** @param {string} message */
const unusable = (message) => new Refusal(500, 'worker_settings', message);

/**
 * @param {Record<string, any>} env
 * @returns {{ config: any, limits: ReturnType<typeof limitsFrom>, sandbox: Omit<import('./forward.js').SandboxSettings, 'userId'> }}
 */
export function settings(env) {
  let config = {};
  if (env.GATE_CONFIG) {
    try {
      config = JSON.parse(env.GATE_CONFIG);
    } catch (e) {
      throw unusable(`GATE_CONFIG is not JSON: ${e.message}`);
    }
  }
  if (!env.SANDBOX_URL) throw unusable('SANDBOX_URL is not set');
  const dialect = env.SANDBOX_DIALECT ?? 'codeapi';
  if (!DIALECTS.includes(dialect)) throw unusable(`SANDBOX_DIALECT must be codeapi or librecodeinterpreter, not ${dialect}`);
  const timeoutMs = Number(env.SANDBOX_TIMEOUT_MS ?? 30000);
  if (!(timeoutMs > 0)) throw unusable(`SANDBOX_TIMEOUT_MS must be a positive number, not ${env.SANDBOX_TIMEOUT_MS}`);
  return {
    config,
    limits: limitsFrom(env),
    sandbox: {
      url: String(env.SANDBOX_URL).replace(/\/+$/, ''),
      dialect,
      credential: env.SANDBOX_CREDENTIAL || undefined,
      timeoutMs,
      deadlineMs: Number(env.SANDBOX_DEADLINE_MS ?? timeoutMs + 5000),
    },
  };
}
