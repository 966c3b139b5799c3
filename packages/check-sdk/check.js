// check-sdk's engine: every item (a conformance vector, or a step of a trace) run through one SDK
// release and through the gate under each profile; an item agrees under a profile when the gate's
// answer equals the SDK's, and, for a vector whose `profiles` name that profile, when the vector's
// own `expect` equals the SDK's answer too.

import { readFileSync } from 'node:fs';
import { deepEqual, diff, plain, show, wireExpect, wireView } from './compare.js';
import { OPS } from './gate.js';
import { replayOnGate, replayOnSdk } from './replay.js';
import { NotObservable, createDrivers } from './sdk.js';
import { TraceFileError, readTrace } from './trace.js';

export const PROFILES = /** @type {const} */ (['3.6', '3.9']);

/** A vectors file that cannot be read. */
export class VectorsFileError extends Error {
  /** @param {string} file @param {string} field @param {string} message */
  constructor(file, field, message) {
    super(`${file}: ${field ? `${field}: ` : ''}${message}`);
    this.name = 'VectorsFileError';
    this.code = 'invalid_vectors';
    this.file = file;
    this.field = field;
  }
}

/** @param {string} file */
function readJson(file, /** @type {new (file: string, field: string, message: string) => Error} */ Err) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Err(file, '', `cannot be read (${/** @type {any} */ (e).code ?? /** @type {Error} */ (e).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Err(file, '', `is not JSON (${/** @type {Error} */ (e).message})`);
  }
}

/**
 * The vectors of one file (the format of the shipped conformance vectors).
 * @param {string} file
 * @returns {any[]}
 */
export function readVectors(file) {
  const doc = readJson(file, VectorsFileError);
  const vectors = Array.isArray(doc) ? doc : doc?.vectors;
  if (!Array.isArray(vectors)) throw new VectorsFileError(file, 'vectors', 'must be an array of vectors');
  vectors.forEach((v, i) => {
    const at = `vectors[${i}]`;
    if (v === null || typeof v !== 'object') throw new VectorsFileError(file, at, 'a vector is an object { name, op, input, expect, profiles? }');
    if (typeof v.name !== 'string') throw new VectorsFileError(file, `${at}.name`, 'must be a string');
    if (!Object.hasOwn(OPS, v.op)) throw new VectorsFileError(file, `${at}.op`, `${JSON.stringify(v.op)} is not an op (${Object.keys(OPS).join(', ')})`);
    if (v.input === null || typeof v.input !== 'object') throw new VectorsFileError(file, `${at}.input`, 'must be an object');
    if (v.profiles !== undefined && !(Array.isArray(v.profiles) && v.profiles.every((/** @type {unknown} */ p) => PROFILES.includes(/** @type {any} */ (p))))) {
      throw new VectorsFileError(file, `${at}.profiles`, `must be an array of ${PROFILES.join(', ')}`);
    }
  });
  return vectors;
}

/** @param {string} file */
export function readTraceFile(file) {
  return readTrace(readJson(file, TraceFileError), file);
}

/** The site of a vector: its op and, when it has one, its path. @param {any} v */
const siteOf = (v) => (typeof v.input?.path === 'string' ? `${v.op}/${v.input.path}` : v.op);

/**
 * @typedef {{ kind: 'gate' | 'vector', profile: string, source: string, item: string, site: string, input: unknown,
 *   sdk: unknown, other: unknown, differences: Array<{ path: string, sdk: unknown, other: unknown }> }} Disagreement
 * @typedef {{ source: string, item: string, site: string, reason: string }} Unobserved
 */

/**
 * Runs every item. `vectorFiles`: [{ file, label }]; `traceFiles`: file names.
 * @param {{ pkg: any, sdk: ReturnType<typeof import('./sdk.js').loadSdk>, vectorFiles: Array<{ file: string, label: string }>, traceFiles: string[], timeoutMs: number }} o
 */
export async function check(o) {
  const drivers = createDrivers(o.sdk);
  /** @type {Disagreement[]} */
  const disagreements = [];
  /** @type {Unobserved[]} */
  const unobserved = [];
  const counts = { vectors: 0, traces: 0, steps: 0, items: 0 };
  /** @type {Record<string, { items: number, agree: number, disagree: number }>} */
  const perProfile = Object.fromEntries(PROFILES.map((p) => [p, { items: 0, agree: 0, disagree: 0 }]));

  // Read every file first: a bad file is a usage error before anything runs.
  const vectorSets = o.vectorFiles.map(({ file, label }) => ({ label, vectors: readVectors(file) }));
  const traces = o.traceFiles.map((file) => ({ file, trace: readTraceFile(file) }));

  /**
   * Records one item: the SDK's answer against each profile's gate answer (and the vector's own).
   * @param {{ source: string, item: string, site: string, input: unknown, sdk: unknown, gate: Record<string, unknown>, expect?: unknown, expectProfiles?: string[], view?: (a: unknown) => unknown, expectView?: (e: unknown) => unknown }} r
   */
  const record = (r) => {
    counts.items++;
    const view = r.view ?? ((/** @type {unknown} */ a) => a);
    const sdk = view(r.sdk);
    for (const profile of PROFILES) {
      const tally = perProfile[profile];
      tally.items++;
      let ok = true;
      const gate = view(r.gate[profile]);
      // Both refusing the input is agreement, whatever each one's words.
      if (!deepEqual(sdk, gate) && !(isError(sdk) && isError(gate))) {
        ok = false;
        disagreements.push({ kind: 'gate', profile, source: r.source, item: r.item, site: r.site, input: r.input, sdk, other: gate, differences: pathsOf(sdk, gate) });
      }
      if (r.expect !== undefined && (r.expectProfiles ?? PROFILES).includes(profile)) {
        const expect = r.expectView ? r.expectView(r.expect) : r.expect;
        if (!deepEqual(sdk, expect)) {
          ok = false;
          disagreements.push({ kind: 'vector', profile, source: r.source, item: r.item, site: r.site, input: r.input, sdk, other: expect, differences: pathsOf(sdk, expect) });
        }
      }
      if (ok) tally.agree++;
      else tally.disagree++;
    }
  };

  for (const { label, vectors } of vectorSets) {
    for (const v of vectors) {
      counts.vectors++;
      let sdkAnswer;
      try {
        sdkAnswer = await settled(drivers.ops[v.op](structuredClone(v.input)), o.timeoutMs);
      } catch (e) {
        if (e instanceof NotObservable) {
          unobserved.push({ source: label, item: v.name, site: siteOf(v), reason: e.message });
          continue;
        }
        sdkAnswer = { error: errorText(e) };
      }
      /** @type {Record<string, unknown>} */
      const gate = {};
      for (const profile of PROFILES) {
        try {
          gate[profile] = OPS[v.op](o.pkg, structuredClone(v.input), profile);
        } catch (e) {
          gate[profile] = { error: errorText(e) };
        }
      }
      record({
        source: label,
        item: v.name,
        site: siteOf(v),
        input: v.input,
        sdk: sdkAnswer,
        gate,
        expect: v.expect,
        expectProfiles: v.profiles,
        view: v.op === 'exec_wire' ? (a) => (isError(a) ? a : wireView(v.expect, a)) : undefined,
        expectView: v.op === 'exec_wire' ? wireExpect : undefined,
      });
    }
  }

  /** @type {Array<{ file: string, steps: number, path: string, profile: string | null }>} */
  const traceInfo = [];
  for (const { file, trace } of traces) {
    counts.traces++;
    traceInfo.push({ file, steps: trace.steps.length, path: trace.path, profile: typeof trace.config.profile === 'string' ? trace.config.profile : null });
    let sdkSteps;
    try {
      sdkSteps = await settled(replayOnSdk(drivers, trace), o.timeoutMs * Math.max(1, trace.steps.length));
    } catch (e) {
      sdkSteps = trace.steps.map(() => ({ error: errorText(e) }));
    }
    /** @type {Record<string, import('./replay.js').StepAnswer[]>} */
    const gateSteps = {};
    for (const profile of PROFILES) gateSteps[profile] = replayOnGate(o.pkg, trace, profile);
    trace.steps.forEach((step, i) => {
      counts.steps++;
      record({
        source: file,
        item: `steps[${i}] ${step.call.name} (${step.call.id})`,
        site: `trace/${trace.path}`,
        input: plain({ config: trace.config, call: step.call, result: step.result, ...(step.agent !== undefined ? { agent: trace.agents[step.agent] } : {}) }),
        sdk: sdkSteps[i],
        gate: Object.fromEntries(PROFILES.map((p) => [p, gateSteps[p][i]])),
      });
    });
  }

  const agreeing = PROFILES.filter((p) => perProfile[p].disagree === 0 && perProfile[p].items > 0);
  return {
    sdk: { package: '@librechat/agents', version: o.sdk.version, dir: o.sdk.pkgDir },
    counts,
    profiles: perProfile,
    agreeing,
    verdict: agreeing.length > 0 ? 'agrees' : 'disagrees',
    // Each trace's own profile: a host whose gate ran under another profile than the agreeing one
    // should switch.
    traces: traceInfo.map((t) => ({ ...t, profileAgrees: t.profile === null ? null : agreeing.includes(t.profile) })),
    disagreements,
    unobserved,
  };
}

/** The SDK did not answer in time (a release whose dispatch never settles, say). */
export class SdkTimeout extends Error {
  /** @param {number} ms */
  constructor(ms) {
    super(`the SDK did not settle within ${ms} ms`);
    this.name = 'SdkTimeout';
  }
}

/**
 * `promise`, or a rejection with SdkTimeout after `ms`. The timer keeps the process alive meanwhile:
 * a promise nothing will ever settle must not let Node exit as if all went well.
 * @template T @param {Promise<T>} promise @param {number} ms @returns {Promise<T>}
 */
function settled(promise, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new SdkTimeout(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** @param {unknown} a */
const isError = (a) => a !== null && typeof a === 'object' && 'error' in a && Object.keys(a).length === 1;

/** @param {unknown} e */
function errorText(e) {
  const err = /** @type {any} */ (e);
  return `${err?.name ?? 'Error'}${err?.code ? ` ${err.code}` : ''}: ${String(err?.message ?? err).split('\n')[0]}`;
}

/** @param {unknown} sdk @param {unknown} other */
function pathsOf(sdk, other) {
  return diff(sdk, other).map(({ path, a, b }) => ({ path, sdk: a, other: b }));
}

export { show };
