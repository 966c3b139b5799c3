// The package explaining its own decisions (what the devtools page shows): `gate.explain(name, options)`,
// `explainInjectedFileRef(file, execSessionId)` and `diffSessions(before, after)`. Each explanation must
// agree with the decision it explains (classify, isEagerExcluded, contextForCall, toInjectedFileRef), name
// the rule the spec gives for it, and refuse malformed input with a typed error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { refuses } from './refuses.mjs';

const { Gate, diffSessions, explainInjectedFileRef, toInjectedFileRef } = pkg;

const NAMES = ['execute_code', 'bash_tool', 'run_tools_with_code', 'create_file', 'edit_file', 'read_file', 'skill', 'web_search', '', 'Execute_Code'];
const CONFIGS = [
  { profile: '3.9' },
  { profile: '3.6' },
  { profile: '3.9', codeSessionToolNames: ['create_file', 'edit_file', 'read_file'] },
  { profile: '3.6', codeSessionToolNames: ['create_file', 'skill'] },
  { profile: '3.9', toolExecution: { sandbox: { statefulSessions: true } }, eagerEventToolExecution: { excludeToolNames: ['bash_tool'] } },
  { profile: '3.9', sessions: null },
];

const siteOf = (explanation, site) => explanation.sites.find((s) => s.site === site);

describe('gate.explain', () => {
  test('every site agrees with classify, and the eager site with isEagerExcluded, for every name and config', () => {
    for (const config of CONFIGS) {
      const gate = new Gate(config);
      for (const name of NAMES) {
        for (const options of [{}, { codeSessionKey: 'other' }, { codeSessionKey: '' }]) {
          const e = gate.explain(name, options);
          const verdict = gate.classify(name);
          assert.deepEqual(Object.keys(verdict).sort(), e.sites.map((s) => s.site).sort(), 'one explanation per site');
          for (const s of e.sites) {
            assert.equal(s.passes, verdict[s.site], `${JSON.stringify(config)} ${name} ${s.site}`);
            assert.equal(typeof s.because, 'string');
            assert.ok(s.because.length > 0);
          }
          assert.equal(e.eager.excluded, gate.isEagerExcluded(name, options), `${name} eager ${JSON.stringify(options)}`);
          assert.equal(e.profile, gate.profile);
        }
      }
      gate.free();
    }
  });

  test('names the rule: built-in, declared, not listed, empty', () => {
    const gate = new Gate({ codeSessionToolNames: ['create_file'] });
    for (const s of gate.explain('execute_code').sites) assert.deepEqual([s.passes, s.rule], [true, 'built_in'], s.site);
    for (const s of gate.explain('create_file').sites) assert.deepEqual([s.passes, s.rule], [true, 'declared'], s.site);
    const web = gate.explain('web_search');
    assert.equal(web.builtIn, false);
    assert.equal(web.declared, false);
    assert.equal(siteOf(web, 'participates').rule, 'not_listed');
    assert.equal(siteOf(web, 'participates').passes, false);
    assert.equal(siteOf(gate.explain(''), 'participates').rule, 'empty_name');
    assert.equal(gate.explain('create_file').declared, true);
    assert.equal(gate.explain('bash_tool').builtIn, true);
    gate.free();
  });

  test('the eager exclusion names the first rule that decides, in the SDK order', () => {
    const gate = new Gate({
      codeSessionToolNames: ['create_file'],
      eagerEventToolExecution: { excludeToolNames: ['bash_tool', 'create_file'] },
    });
    assert.equal(gate.explain('bash_tool').eager.rule, 'exclude_list');
    assert.equal(gate.explain('create_file').eager.rule, 'exclude_list', 'the list is consulted before the declaration');
    assert.equal(gate.explain('web_search').eager.rule, 'not_code_tool');
    assert.equal(gate.explain('web_search').eager.excluded, false);
    assert.equal(gate.explain('execute_code').eager.rule, 'default_partition');
    assert.equal(gate.explain('execute_code', { codeSessionKey: 'analyst' }).eager.rule, 'custom_partition');
    assert.equal(gate.explain('execute_code', { codeSessionKey: 'analyst' }).eager.excluded, true);
    assert.deepEqual(gate.explain('execute_code').eager.excludeToolNames, ['bash_tool', 'create_file']);
    gate.suppressEagerTool('execute_code');
    assert.equal(gate.explain('execute_code').eager.rule, 'suppressed');
    assert.deepEqual(gate.explain('execute_code').eager.suppressedToolNames, ['execute_code']);
    gate.free();

    const declared = new Gate({ codeSessionToolNames: ['create_file'] });
    assert.equal(declared.explain('create_file').eager.rule, 'declared');
    declared.free();
    const stateful = new Gate({ toolExecution: { sandbox: { statefulSessions: true } } });
    assert.equal(stateful.explain('bash_tool').eager.rule, 'stateful_sessions');
    assert.equal(stateful.explain('bash_tool').eager.statefulSessions, true);
    stateful.free();
  });

  test('the runtime hint: off without stateful sessions, else the explicit hint, else the thread id', () => {
    const off = new Gate({ toolExecution: { sandbox: { runtimeSessionHint: 'h' } } });
    assert.deepEqual([off.explain('bash_tool', { threadId: 't' }).runtimeHint.value, off.explain('bash_tool').runtimeHint.rule], [null, 'not_stateful']);
    off.free();
    const hinted = new Gate({ toolExecution: { sandbox: { statefulSessions: true, runtimeSessionHint: 'h' } } });
    assert.deepEqual(pick(hinted.explain('bash_tool', { threadId: 't' }).runtimeHint), ['h', 'explicit_hint']);
    hinted.free();
    const threaded = new Gate({ toolExecution: { sandbox: { statefulSessions: true } } });
    assert.deepEqual(pick(threaded.explain('bash_tool', { threadId: 't' }).runtimeHint), ['t', 'thread_id']);
    assert.deepEqual(pick(threaded.explain('bash_tool').runtimeHint), [null, 'no_thread_id']);
    // The hint the explanation names is the one a participant's request carries.
    const fields = threaded.contextForCall('event', 'bash_tool', { threadId: 't' });
    assert.equal(fields.runtimeSessionHint, 't');
    threaded.free();
  });

  test('the partition and thread are the call’s', () => {
    const gate = new Gate({ codeSessionKey: 'shared' });
    assert.equal(gate.explain('bash_tool').codeSessionKey, 'shared');
    assert.equal(gate.explain('bash_tool', { codeSessionKey: 'mine' }).codeSessionKey, 'mine');
    assert.equal(gate.explain('bash_tool', { threadId: 'th' }).threadId, 'th');
    assert.equal(gate.explain('bash_tool').threadId, null);
    gate.free();
  });

  test('refuses malformed input with the offending path, and changes nothing', () => {
    const gate = new Gate({ sessions: [['execute_code', { session_id: 'e', files: [] }]] });
    const before = gate.snapshot();
    refuses(() => gate.explain(42), 'invalid_type', 'name');
    refuses(() => gate.explain('bash_tool', { codeSessionKey: 5 }), 'invalid_type', 'options.codeSessionKey');
    refuses(() => gate.explain('bash_tool', { threadId: ['t'] }), 'invalid_type', 'options.threadId');
    assert.equal(gate.snapshot(), before);
    gate.free();
  });
});

const pick = (d) => [d.value, d.rule];

describe('explainInjectedFileRef', () => {
  const FILES = [
    { id: 'u', name: 'a.txt', storage_session_id: 's' },
    { id: 'u', name: 'a.txt', storage_session_id: 's', kind: 'user', version: 3 },
    { id: 'g', name: 'b.txt', storage_session_id: 's', kind: 'agent', version: 2, resource_id: 'r' },
    { id: 'k', name: 'SKILL.md', storage_session_id: 's', kind: 'skill', version: 4, resource_id: 'sk' },
    { id: 'k', name: 'SKILL.md', storage_session_id: 's', kind: 'skill' },
    { id: 'k', name: 'SKILL.md', storage_session_id: 's', kind: 'skill', version: null },
    { id: 'x', name: 'x', kind: 'mystery' },
    { id: 'y', name: 'y', storage_session_id: '', path: '/mnt/data/y', inherited: true },
  ];

  test('its file is exactly what toInjectedFileRef returns', () => {
    for (const file of FILES) {
      for (const exec of ['exec_1', '']) {
        assert.deepEqual(explainInjectedFileRef(file, exec).file, toInjectedFileRef(file, exec), JSON.stringify(file));
      }
    }
  });

  test('names the rule of the kind', () => {
    const rule = (f) => explainInjectedFileRef(f, 'e').kind.rule;
    assert.equal(rule(FILES[0]), 'missing_kind');
    assert.equal(rule(FILES[1]), 'user');
    assert.equal(rule(FILES[2]), 'agent');
    assert.equal(rule(FILES[3]), 'skill_with_version');
    assert.equal(rule(FILES[4]), 'skill_without_version');
    assert.equal(rule(FILES[5]), 'skill_without_version');
    assert.equal(rule(FILES[6]), 'unknown_kind');
    assert.equal(explainInjectedFileRef(FILES[4], 'e').file.kind, 'user', 'a skill without a version is sent as a user file');
  });

  test('says where resource_id and storage_session_id came from, and what was dropped', () => {
    const own = explainInjectedFileRef(FILES[2], 'e');
    assert.deepEqual([own.resourceId, own.storageSessionId], ['own', 'own']);
    assert.deepEqual(own.dropped, ['version'], 'an agent file loses its version');
    const fallback = explainInjectedFileRef({ id: 'i', name: 'n' }, 'exec_9');
    assert.deepEqual([fallback.resourceId, fallback.storageSessionId], ['fallback', 'fallback']);
    assert.equal(fallback.file.resource_id, 'i');
    assert.equal(fallback.file.storage_session_id, 'exec_9');
    const empty = explainInjectedFileRef(FILES[7], 'exec_9');
    assert.equal(empty.storageSessionId, 'own', 'an empty storage_session_id is still the file’s own');
    assert.deepEqual(empty.dropped, ['path', 'inherited']);
  });

  test('refuses malformed input with the offending path', () => {
    refuses(() => explainInjectedFileRef('a.txt', 'e'), 'invalid_type', 'file');
    refuses(() => explainInjectedFileRef({ id: 1, name: 'n' }, 'e'), 'invalid_type', 'file.id');
    refuses(() => explainInjectedFileRef({ id: 'i', name: 'n' }, 7), 'invalid_type', 'execSessionId');
  });
});

describe('diffSessions', () => {
  const f = (id, name, storage, extra = {}) => ({ id, name, storage_session_id: storage, ...extra });

  test('added, kept, replaced and deleted, matched by name', () => {
    const before = { session_id: 'e1', files: [f('a', 'keep.txt', 'e1'), f('b', 'swap.txt', 'e1'), f('c', 'gone.txt', 'e1')] };
    const after = { session_id: 'e2', files: [f('a', 'keep.txt', 'e1'), f('b2', 'swap.txt', 'e2'), f('d', 'new.txt', 'e2')] };
    const d = diffSessions(before, after);
    assert.deepEqual(d.sessionId, { before: 'e1', after: 'e2' });
    const fate = Object.fromEntries(d.files.map((x) => [x.name, x.change]));
    assert.deepEqual(fate, { 'keep.txt': 'kept', 'swap.txt': 'replaced', 'new.txt': 'added', 'gone.txt': 'deleted' });
    const swap = d.files.find((x) => x.name === 'swap.txt');
    assert.equal(swap.previous.id, 'b');
    assert.equal(swap.file.id, 'b2');
    const gone = d.files.find((x) => x.name === 'gone.txt');
    assert.equal(gone.previous.id, 'c');
    assert.equal(gone.file, undefined);
  });

  test('a file is kept only when its identity and its narrowed kind are the same', () => {
    const fate = (a, b) => diffSessions({ session_id: 'e', files: [a] }, { session_id: 'e', files: [b] }).files[0].change;
    assert.equal(fate(f('a', 'x', 's'), f('a', 'x', 's2')), 'replaced', 'another storage session is another file');
    assert.equal(fate(f('a', 'x', 's', { kind: 'skill', version: 1 }), f('a', 'x', 's', { kind: 'skill', version: 2 })), 'replaced');
    assert.equal(fate(f('a', 'x', 's', { kind: 'skill', version: 1 }), f('a', 'x', 's', { kind: 'skill' })), 'replaced', 'it becomes a user file');
    assert.equal(fate(f('a', 'x', 's'), f('a', 'x', 's', { kind: 'user' })), 'kept', 'no kind narrows to user');
    // A file without its own storage session lives in the partition's exec session.
    assert.equal(fate(f('a', 'x', undefined), f('a', 'x', 'e')), 'kept');
  });

  test('a partition that appears or disappears', () => {
    const one = { session_id: 'e', files: [f('a', 'x', 'e')] };
    assert.deepEqual(diffSessions(null, one).files.map((x) => x.change), ['added']);
    assert.deepEqual(diffSessions(one, undefined).files.map((x) => x.change), ['deleted']);
    assert.deepEqual(diffSessions(null, null), { sessionId: { before: null, after: null }, files: [] });
  });

  test('refuses malformed input with the offending path', () => {
    refuses(() => diffSessions({ session_id: 'e', files: [{ id: 1, name: 'x' }] }, null), 'invalid_type', 'before.files[0].id');
    refuses(() => diffSessions(null, { session_id: 5 }), 'invalid_type', 'after.session_id');
    refuses(() => diffSessions(null, []), 'invalid_type', 'after');
  });
});
