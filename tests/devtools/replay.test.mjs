// The devtools page's replay (www/devtools/replay.js) in Node, against the built package: each preset
// shows what its title claims, every path replays it, a refused step is recorded and the replay goes on,
// and a malformed trace is refused with the offending path.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { PRESETS } from '../../www/devtools/presets.js';
import { TraceError, compareReplays, normalizeTrace, replay } from '../../www/devtools/replay.js';

const sentNames = (step) => (step.sent?.codeSessionContext?.files ?? step.sent?._injected_files ?? []).map((f) => f.name);
const fates = (step, key = 'execute_code') =>
  Object.fromEntries((step.changes.find((c) => c.key === key)?.files ?? []).map((f) => [f.name, f.change]));

describe('presets', () => {
  test('seed: bash_tool is given mandelbrot.py only when create_file is declared', () => {
    const declared = replay(pkg, PRESETS['seed-declared']);
    const undeclared = replay(pkg, PRESETS['seed-undeclared']);
    assert.deepEqual(sentNames(declared.steps[1]), ['mandelbrot.py']);
    assert.deepEqual(sentNames(undeclared.steps[1]), []);
    // The reason, as the package states it: create_file's answer folds only when it is a session tool.
    const fold = (r) => r.steps[0].explain.sites.find((s) => s.site === 'eventFold');
    assert.deepEqual([fold(declared).passes, fold(declared).rule], [true, 'declared']);
    assert.deepEqual([fold(undeclared).passes, fold(undeclared).rule], [false, 'not_listed']);
    assert.deepEqual(fates(declared.steps[0]), { 'mandelbrot.py': 'added' });
    assert.deepEqual(fates(undeclared.steps[0]), {});
  });

  test('edit round: the edit replaces the file and the run is given the new one', () => {
    const r = replay(pkg, PRESETS['edit-round']);
    assert.deepEqual(fates(r.steps[1]), { 'mandelbrot.py': 'replaced' });
    const file = r.steps[2].sent.codeSessionContext.files[0];
    assert.deepEqual([file.id, file.storage_session_id], ['f_mandel_2', 'exec_B']);
  });

  test('skill files: with a version a skill, without one a user file', () => {
    const r = replay(pkg, PRESETS['skill-version']);
    const sent = Object.fromEntries(r.steps[1].sent.codeSessionContext.files.map((f) => [f.name, f]));
    assert.equal(sent['skills/pptx/SKILL.md'].kind, 'skill');
    assert.equal(sent['skills/pptx/SKILL.md'].version, 7);
    assert.equal(sent['skills/pptx/NOTES.md'].kind, 'user');
    assert.equal('version' in sent['skills/pptx/NOTES.md'], false);
  });

  test('inherited echo: the echoed file is kept, the new one added', () => {
    const r = replay(pkg, PRESETS['inherited-echo']);
    assert.deepEqual(fates(r.steps[1]), { 'mandelbrot.py': 'kept', 'plot.png': 'added' });
  });

  test('two partitions never see each other’s files', () => {
    const r = replay(pkg, PRESETS['two-partitions']);
    assert.deepEqual(sentNames(r.steps[2]), ['mandelbrot.py']);
    assert.deepEqual(sentNames(r.steps[3]), ['draft.md']);
    assert.deepEqual(r.steps[3].explain.codeSessionKey, 'writer');
    assert.deepEqual(r.steps[3].sessions.map((p) => p.key).sort(), ['execute_code', 'writer']);
  });

  test('3.6 vs 3.9: deleted_files is honoured by 3.9 only', () => {
    const a = replay(pkg, PRESETS['profile-difference'], { profile: '3.6' });
    const b = replay(pkg, PRESETS['profile-difference'], { profile: '3.9' });
    assert.deepEqual([a.profile, b.profile], ['3.6', '3.9']);
    assert.deepEqual(fates(b.steps[1]), { 'mandelbrot.py': 'deleted' });
    assert.notEqual(fates(a.steps[1])['mandelbrot.py'], 'deleted');
    assert.deepEqual(sentNames(b.steps[2]), []);
    assert.deepEqual(sentNames(a.steps[2]), ['mandelbrot.py']);
    const diff = compareReplays(a, b);
    assert.equal(diff[1].sessions, true);
    assert.equal(diff[2].sent, true);
  });

  test('every preset replays on every path without a refusal, the same way twice', () => {
    for (const [id, preset] of Object.entries(PRESETS)) {
      for (const path of ['direct', 'event', 'eager']) {
        const trace = { ...preset, path };
        const r = replay(pkg, trace);
        for (const step of r.steps) assert.equal(step.error, undefined, `${id} on ${path}: ${JSON.stringify(step.error)}`);
        assert.equal(replay(pkg, trace).snapshot, r.snapshot, `${id} on ${path} is deterministic`);
      }
    }
  });

  test('the direct path sends invoke params, the event paths request fields', () => {
    const direct = replay(pkg, { ...PRESETS['seed-declared'], path: 'direct' });
    assert.deepEqual(direct.steps[1].sent._injected_files.map((f) => f.name), ['mandelbrot.py']);
    assert.equal(direct.steps[1].sent.session_id, 'exec_A');
    const eager = replay(pkg, { ...PRESETS['seed-declared'], path: 'eager', config: { ...PRESETS['seed-declared'].config, toolExecution: {} } });
    assert.equal(eager.steps[1].prestarted, true, 'bash_tool is prestarted without stateful sessions');
    assert.equal(eager.steps[0].prestarted, false, 'create_file is on the exclude list');
  });
});

describe('refusals', () => {
  test('a step the package refuses records its typed error; the next step still runs', () => {
    const trace = {
      ...PRESETS['seed-declared'],
      steps: [{ call: { id: 'bad', name: 7, args: {} } }, ...PRESETS['seed-declared'].steps],
    };
    const r = replay(pkg, trace);
    assert.equal(r.steps[0].error.name, 'CodeSessionGateError');
    assert.equal(r.steps[0].error.code, 'invalid_type');
    assert.equal(r.steps[0].error.path, 'name');
    assert.deepEqual(sentNames(r.steps[2]), ['mandelbrot.py']);
  });

  test('a refused configuration throws the package’s typed error', () => {
    assert.throws(
      () => replay(pkg, { ...PRESETS['seed-declared'], config: { codeSessionToolNames: [1] } }),
      (e) => e.name === 'CodeSessionGateError' && e.code === 'invalid_type' && e.path === 'config.codeSessionToolNames[0]',
    );
  });

  test('a malformed trace names the offending field', () => {
    const bad = (trace, path) => assert.throws(() => normalizeTrace(trace), (e) => e instanceof TraceError && e.path === path && e.code === 'invalid_trace');
    bad([], '');
    bad({ steps: {} }, 'steps');
    bad({ steps: [], path: 'sideways' }, 'path');
    bad({ steps: [null] }, 'steps[0]');
    bad({ steps: [{ call: 'x' }] }, 'steps[0].call');
    bad({ steps: [{ call: {}, agent: 'ghost' }] }, 'steps[0].agent');
    bad({ steps: [], format: 'other' }, 'format');
    bad({ steps: [], version: 2 }, 'version');
    bad({ steps: [], threadId: 3 }, 'threadId');
    bad({ steps: [], config: [] }, 'config');
  });
});
