// Property 5 — native ≡ wasm: sequences of calls generated (seeded) by tests/properties.rs and run
// natively through the `code-session-gate` crate are replayed here through the built package (pkg/, the
// JavaScript API in Node), answer by answer.
//
// The Rust side writes one JSON object per line: `{config, steps}`, each step with its arguments
// resolved and the native answer — `{ok: <the JSON text the JS answer stringifies to>, canonical}` or
// `{error: {code, path}}` — plus, after a step that may write, the `sessions()` text (`readBack`). Compared:
// - every answer exactly (`JSON.stringify` of the JS value against the native text), except
//   - batch answers (`beginEventBatch`, `beginDirectBatch`): without the batch id (ids are drawn from a
//     module-wide counter) and with object keys sorted (the JS layer rebuilds requests with their
//     context in another key order);
//   - writers the JS API declares `void` (`foldResults`, `updateSession`, `completeDirectBatch`,
//     `setSessions`, `seedRun`, `resetRun`) answer `undefined` where the module answers `null`;
//   - `restore`: the native side restores in place; here `Gate.fromSnapshot(gate.snapshot(), config?)`
//     replaces the gate, and the answer compared is the restored gate's snapshot text;
// - every refusal by `code` and `path` (messages are free text);
// - `sessions()` after every step that may write, and at the end of every sequence `sessions()` and
//   `snapshot()`.
// `contextForCall` answers go through the JS layer's caches (frozen, shared per partition state),
// which is what this compares against the module's uncached answer.
//
//   node --test tests/js/properties.test.mjs                              # 300 sequences (default)
//   CSG_PROPERTY_CASES=10000 node --test tests/js/properties.test.mjs     # the full run
//
// The sequences are written by `cargo test --test properties -- --exact write_replay_sequences` into
// target/properties/ (CSG_PROPERTY_SEQUENCES names another file; CSG_PROPERTY_REUSE=1 replays an
// existing file without regenerating it). CSG_PROPERTY_SEED changes the seed on both sides.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Gate } from '../../pkg/node.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CASES = Number(process.env.CSG_PROPERTY_CASES ?? 300);
const SEED = process.env.CSG_PROPERTY_SEED ?? 'default';
const FILE = process.env.CSG_PROPERTY_SEQUENCES ?? `${ROOT}target/properties/sequences-${CASES}-${SEED}.jsonl`;
/** How many mismatches are reported in full before the rest are only counted. */
const SHOWN = 5;

/** Writes the sequences with the native answers (the Rust half of the property). */
function generate() {
  if (process.env.CSG_PROPERTY_REUSE === '1' && existsSync(FILE)) return;
  mkdirSync(dirname(FILE), { recursive: true });
  const r = spawnSync('cargo', ['test', '--quiet', '--test', 'properties', '--', '--exact', 'write_replay_sequences'], {
    cwd: ROOT,
    env: { ...process.env, CSG_PROPERTY_SEQUENCES: FILE, CSG_PROPERTY_CASES: String(CASES) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  assert.equal(r.status, 0, `cargo test write_replay_sequences failed (status ${r.status}, ${r.error ?? ''})`);
  assert.ok(existsSync(FILE), `${FILE} was not written`);
}

/** `v` with every object's keys sorted. */
function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(v[k]);
    return out;
  }
  return v;
}

const text = (v) => (v === undefined ? 'undefined' : JSON.stringify(v));
const VOID = new Set(['foldResults', 'updateSession', 'completeDirectBatch', 'setSessions', 'seedRun', 'resetRun']);

/** Replays one sequence; returns the mismatches found (each a description). */
function replay(seq, line) {
  const mismatches = [];
  const configOnly = { ...seq.config };
  delete configOnly.sessions;
  let gate = new Gate(seq.config);
  /** Every batch begun, in order: the JS answer, or null for a refused begin. */
  const begun = [];
  const batchOf = (i) => (i === null || i === undefined ? undefined : begun[i] ?? undefined);
  const run = (s) => {
    switch (s.op) {
      case 'foldResults':
        return gate.foldResults(s.path, s.results, s.options);
      case 'updateSession':
        return gate.updateSession(s.key, s.artifact, s.options);
      case 'beginEventBatch': {
        begun.push(null);
        const b = gate.beginEventBatch(s.calls, s.options);
        begun[begun.length - 1] = b;
        return { dispatch: b.dispatch, rejected: b.rejected, eager: b.eager };
      }
      case 'beginDirectBatch': {
        begun.push(null);
        const b = gate.beginDirectBatch(s.calls, s.options);
        begun[begun.length - 1] = b;
        return { injections: b.injections };
      }
      case 'completeEventBatch': {
        const b = batchOf(s.batch);
        const dispatch = b?.dispatch ?? [];
        const requests = s.requests.map((q) => {
          const r = dispatch.find((x) => x.id === q.id);
          switch (q.action) {
            case 'removed':
              return { ...r, codeSessionContext: undefined };
            case 'copy':
              return { ...r, codeSessionContext: structuredClone(r.codeSessionContext) };
            case 'replace':
              return { ...r, codeSessionContext: q.context };
            default:
              return r; // as handed out: the JS layer sends it as unchanged
          }
        });
        const options = s.rejected ? { requests, rejected: true, now: s.now } : { requests, results: s.results, now: s.now };
        return gate.completeEventBatch(b?.id ?? 0, options);
      }
      case 'completeDirectBatch':
        return gate.completeDirectBatch(batchOf(s.batch)?.id ?? 0, s.outcomes, s.options);
      case 'setSessions':
        return gate.setSessions(s.sessions);
      case 'seedRun':
        return gate.seedRun(s.initialSessions, s.agents);
      case 'resetRun':
        return gate.resetRun();
      case 'abandon':
        return gate.abandon(batchOf(s.batch)?.id ?? 0);
      case 'restore': {
        const again = Gate.fromSnapshot(gate.snapshot(), s.withConfig ? configOnly : undefined);
        gate.free();
        gate = again;
        return gate.snapshot();
      }
      case 'contextForCall':
        return gate.contextForCall(s.path, s.name, s.options);
      case 'session':
        return gate.session(s.key);
      case 'sessions':
        return gate.sessions();
      case 'snapshot':
        return gate.snapshot();
      default:
        throw new Error(`unknown op ${s.op}`);
    }
  };
  for (const [i, step] of seq.steps.entries()) {
    const where = `line ${line} step ${i} ${step.op}`;
    let got;
    try {
      const v = run(step);
      const want = step.answer.ok;
      const shown = step.answer.canonical ? JSON.stringify(canonical(v)) : VOID.has(step.op) && v === undefined ? 'null' : text(v);
      got = { ok: shown };
      if (want === undefined || shown !== want) {
        mismatches.push(`${where}: answered ${shown}, native ${JSON.stringify(step.answer)}\n  step ${JSON.stringify(step)}`);
      }
    } catch (e) {
      if (e?.name !== 'CodeSessionGateError') throw e;
      got = { error: { code: e.code, path: e.path } };
      const want = step.answer.error;
      if (want === undefined || want.code !== e.code || want.path !== e.path) {
        mismatches.push(`${where}: refused ${e.code} at ${JSON.stringify(e.path)} (${e.message}), native ${JSON.stringify(step.answer)}\n  step ${JSON.stringify(step)}`);
      }
    }
    if (step.readBack !== undefined && got.ok !== undefined) {
      const now = JSON.stringify(gate.sessions());
      if (now !== step.readBack) mismatches.push(`${where}: sessions ${now}, native ${step.readBack}`);
    }
    if (mismatches.length > 0) break; // later steps would only repeat the divergence
  }
  gate.free();
  return mismatches;
}

test(`native and wasm answer ${CASES} generated sequences alike`, async (t) => {
  const started = Date.now();
  generate();
  const generated = Date.now();
  const lines = createInterface({ input: createReadStream(FILE), crlfDelay: Infinity });
  let sequences = 0;
  let steps = 0;
  let refusals = 0;
  const failures = [];
  let line = 0;
  for await (const l of lines) {
    line++;
    if (l.trim() === '') continue;
    const seq = JSON.parse(l);
    sequences++;
    steps += seq.steps.length;
    refusals += seq.steps.filter((s) => s.answer.error !== undefined).length;
    const m = replay(seq, line);
    if (m.length > 0) failures.push(m[0]);
  }
  t.diagnostic(
    `${sequences} sequences, ${steps} steps (${refusals} refusals) compared; generation ${((generated - started) / 1000).toFixed(1)} s, replay ${((Date.now() - generated) / 1000).toFixed(1)} s`,
  );
  assert.ok(sequences >= CASES, `only ${sequences} sequences in ${FILE}`);
  assert.equal(
    failures.length,
    0,
    `${failures.length} of ${sequences} sequences diverged; first ones:\n${failures.slice(0, SHOWN).join('\n')}`,
  );
});
