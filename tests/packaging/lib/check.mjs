// The assertion every fixture's JSON result must pass (fixtures/_shared/job.mjs and the typed TS
// consumers produce the same shape).
import { Fail } from './proc.mjs';

/** @param {unknown} v */
const show = (v) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
};

/** @param {unknown} v */
const threw = (v) => (v && typeof v === 'object' && 'threw' in v ? /** @type {{ threw: unknown }} */ (v).threw : undefined);

/**
 * What is wrong with a fixture's result, as short sentences (empty when it is right).
 * @param {any} r the parsed result
 * @param {{ init?: boolean }} [expect] `init`: the row called `init()`, which must resolve to undefined
 * @returns {string[]}
 */
export function problems(r, expect = {}) {
  if (!r || typeof r !== 'object') return [`result is not an object: ${show(r)}`];
  if (r.fatal) return [`loading failed: ${r.fatal}`];
  const out = [];
  const step = (/** @type {string} */ what, /** @type {unknown} */ v) => {
    const t = threw(v);
    if (t !== undefined) out.push(`${what} threw ${t}`);
    return t === undefined;
  };
  if (step('toInjectedFileRef', r.ref) && !(r.ref && typeof r.ref === 'object' && r.ref.name === 'a.txt' && r.ref.id === 'f1')) {
    out.push(`toInjectedFileRef returned ${show(r.ref)}`);
  }
  if (step('CODE_EXECUTION_TOOLS', r.tools) && !(Array.isArray(r.tools) && r.tools.length > 0 && r.tools.every((/** @type {unknown} */ t) => typeof t === 'string'))) {
    out.push(`CODE_EXECUTION_TOOLS is ${show(r.tools)}, not a non-empty array of names`);
  }
  if (step('new Gate({}).verdict', r.verdict) && !Number.isInteger(r.verdict)) out.push(`verdict returned ${show(r.verdict)}`);
  if (step('gate[Symbol.dispose]()', r.disposed) && r.disposed !== 'freed') out.push(`a call on a disposed gate gave ${show(r.disposed)}, not code "freed"`);
  const e = r.error ?? {};
  if (e.threw === false) out.push('toInjectedFileRef({ name }) did not throw');
  else if (typeof e.threw === 'string') out.push(`the bad-input check threw ${e.threw}`);
  else {
    if (e.name !== 'CodeSessionGateError' || typeof e.code !== 'string' || e.code === '') {
      out.push(`bad input threw name=${show(e.name)} code=${show(e.code)}, not a CodeSessionGateError with a code`);
    }
    if (e.guard !== true) out.push(typeof e.guard === 'string' ? e.guard : `isCodeSessionGateError answered wrongly (${show(e.guard)})`);
  }
  if (step('the sandbox module', r.sandbox)) {
    const a = r.sandbox?.answer;
    if (!(a && a.args?.code === 'print(1)' && a.dropped?.[0] === 'session_id' && !('session_id' in a.args))) {
      out.push(`stripTrustedFields (the sandbox module) returned ${show(r.sandbox)}`);
    }
  }
  if (expect.init && r.init !== 'undefined') out.push(`init() resolved to ${r.init === undefined ? '(not recorded)' : `a value of type ${r.init}`}, not undefined`);
  return out;
}

/**
 * Throws a `Fail` listing what is wrong with the result, if anything.
 * @param {unknown} r
 * @param {{ init?: boolean, where?: string }} [expect] `where`: prefixes the reason (rows with several runs)
 */
export function expectJob(r, expect = {}) {
  const p = problems(r, expect);
  if (p.length) throw new Fail(`${expect.where ? `${expect.where}: ` : ''}${p.join('; ')}`);
}
