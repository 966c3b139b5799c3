// JsonText, the fast path for JSON text the host already holds: folding it gives exactly what folding
// the objects it parses into gives, every refusal an object would get comes with the same code and
// path (and changes nothing), and a JsonText anywhere but `foldResults`' results or `updateSession`'s
// artifact is refused by name.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { JsonText, limits, toInjectedFileRef } from '../../pkg/node.js';
import { refuses } from './refuses.mjs';
import { freshGate } from './seed.mjs';

const NOW = 1_700_000_000_000;
const gate = () => freshGate();
const text = (v) => new JsonText(JSON.stringify(v));

/** Nested one-element arrays, `depth` levels deep. */
const nested = (depth) => {
  let v = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

/** The CodeSessionGateError `fn` throws. */
function refusal(fn) {
  try {
    fn();
  } catch (e) {
    assert.equal(e.name, 'CodeSessionGateError', e.message);
    return e;
  }
  assert.fail('expected a refusal');
}

const artifact = (files, extra = {}) => ({ session_id: 'e1', files, ...extra });
const EVENT = [
  // an inherited echo, a new output, a file with custom keys and unicode, a skill file
  [{ name: 'bash_tool', status: 'success', artifact: artifact([{ id: 'a1', name: 'a.txt', storage_session_id: 'e0', inherited: true }, { id: 'n1', name: 'out/ü 1.txt' }]) }],
  [{ name: 'execute_code', status: 'success', artifact: artifact([{ id: 'x', name: 'x "q" \\ \n', path: '/mnt/data/x', meta: { a: [1, 2.5, null, true] } }]) }],
  [{ name: 'create_file', status: 'success', artifact: artifact([{ id: 's2', name: 'skills/y/SKILL.md', kind: 'skill', version: 7, resource_id: 'r' }], { deleted_files: ['a.txt'] }) }],
  // not folded: an error, a tool outside the session, a request not found
  [{ name: 'bash_tool', status: 'error', artifact: artifact([{ id: 'e', name: 'e.txt' }]) }, { name: 'web_search', status: 'success', artifact: { anything: nested(40) } }, { name: null, status: 'success' }],
  [],
];
const DIRECT = [
  [{ id: 'c1', name: 'execute_code', status: 'success', artifact: artifact([{ id: 'd1', name: 'd.txt' }]) }],
  [{ name: 'bash_tool', status: 'success', artifact: artifact([{ id: 'd2', name: 'd2.txt' }]), isCommand: true }],
];

describe('JsonText folds exactly what its objects fold', () => {
  for (const [path, cases] of [['event', EVENT], ['direct', DIRECT]]) {
    cases.forEach((results, i) => {
      test(`foldResults('${path}') case ${i}`, () => {
        const objects = gate();
        const texts = gate();
        objects.foldResults(path, results, { now: NOW });
        texts.foldResults(path, text(results), { now: NOW });
        assert.deepEqual(texts.sessions(), objects.sessions());
        assert.deepEqual(texts.contextForCall('event', 'bash_tool'), objects.contextForCall('event', 'bash_tool'));
      });
    });
  }

  test('updateSession with and without a baseline', () => {
    const objects = gate();
    const texts = gate();
    const baseline = objects.contextForCall('event', 'bash_tool').codeSessionContext;
    const a = artifact([{ id: 'u1', name: 'u.txt' }, { id: 'a1', name: 'a.txt', storage_session_id: 'e0' }], { deleted_files: ['skills/x/SKILL.md'] });
    objects.updateSession('execute_code', a, { now: NOW, baseline });
    texts.updateSession('execute_code', text(a), { now: NOW, baseline });
    objects.updateSession('other', a, { now: NOW + 1 });
    texts.updateSession('other', text(a), { now: NOW + 1 });
    assert.deepEqual(texts.sessions(), objects.sessions());
  });

  test('an unpaired surrogate in the text is refused at its path, as in an object', () => {
    const results = [{ name: 'bash_tool', status: 'success', artifact: artifact([{ id: 'a\uD800', name: 'n' }]) }];
    const byObject = refuses(() => gate().foldResults('event', results, { now: NOW }), 'lone_surrogate');
    // JSON.stringify escapes it; a text written by hand carries the raw code unit, escaped by JsonText.
    const raw = new JsonText('[{"name":"bash_tool","status":"success","artifact":{"session_id":"e1","files":[{"id":"a\uD800","name":"n"}]}}]');
    assert.match(raw.text, /\\ud800/);
    refuses(() => gate().foldResults('event', raw, { now: NOW }), 'lone_surrogate', byObject.path);
    refuses(() => gate().foldResults('event', text(results), { now: NOW }), 'lone_surrogate', byObject.path);
  });
});

describe('a refused JsonText names what an object would and changes nothing', () => {
  const refusedAlike = [
    ['a file id that is a number', [{ name: 'bash_tool', status: 'success', artifact: artifact([{ id: 1, name: 'n' }]) }]],
    ['a file without a name', [{ name: 'bash_tool', status: 'success', artifact: artifact([{ id: 'i' }]) }]],
    ['a result without status', [{ name: 'bash_tool', artifact: artifact([]) }]],
    ['results that are an object', { name: 'bash_tool' }],
    ['a custom key nested past the limit', [{ name: 'bash_tool', status: 'success', artifact: artifact([{ id: 'i', name: 'n', deep: nested(260) }]) }]],
    ['an ignored artifact nested past the limit', [{ name: 'web_search', status: 'success', artifact: { x: nested(300) } }]],
  ];
  for (const [label, results] of refusedAlike) {
    test(label, () => {
      const byObject = refusal(() => gate().foldResults('event', results, { now: NOW }));
      const g = gate();
      const before = g.sessions();
      refuses(() => g.foldResults('event', text(results), { now: NOW }), byObject.code, byObject.path);
      assert.deepEqual(g.sessions(), before);
    });
  }

  test('nesting up to the limit is accepted, one level more is not', () => {
    // results[0].artifact.files[0].deep is level 6: 250 more levels reach the gate's 256.
    const at = (depth) => [{ name: 'bash_tool', status: 'success', artifact: artifact([{ id: 'i', name: 'n', deep: nested(depth) }]) }];
    const objects = gate();
    const texts = gate();
    objects.foldResults('event', at(251), { now: NOW });
    texts.foldResults('event', text(at(251)), { now: NOW });
    assert.deepEqual(texts.sessions(), objects.sessions());
    refuses(() => gate().foldResults('event', at(252), { now: NOW }), 'invalid_value');
    refuses(() => gate().foldResults('event', text(at(252)), { now: NOW }), 'invalid_value');
  });

  const invalid = [
    ['cut short', '[{"name":', 'invalid_json', 'results[0].name'],
    ['trailing characters', '[] x', 'invalid_json', 'results'],
    ['only whitespace', '  \n ', 'invalid_json', 'results'],
    ['a JavaScript literal, not JSON', "[{name:'bash_tool'}]", 'invalid_json'],
    ['NaN', '[{"name":"bash_tool","status":"success","artifact":{"session_id":"e1","files":[{"id":"i","name":"n","v":NaN}]}}]', 'invalid_json'],
  ];
  for (const [label, body, code, path] of invalid) {
    test(`invalid JSON: ${label}`, () => {
      const g = gate();
      const before = g.sessions();
      refuses(() => g.foldResults('event', new JsonText(body), { now: NOW }), code, path);
      assert.deepEqual(g.sessions(), before);
    });
  }

  test('a text over the input limit', () => {
    const { maxInputBytes } = limits();
    refuses(() => gate().foldResults('event', new JsonText(`[${' '.repeat(maxInputBytes)}]`), { now: NOW }), 'limit_exceeded', 'results');
  });
});

describe('JsonText is accepted only where it is documented', () => {
  const jt = new JsonText('{"now":1}');
  const misplaced = [
    ['as options', (g) => g.foldResults('event', [], jt), 'options'],
    ['as contextForCall options', (g) => g.contextForCall('event', 'bash_tool', jt), 'options'],
    ['nested in results', (g) => g.foldResults('event', [{ name: 'bash_tool', status: 'success', artifact: jt }], { now: NOW }), 'results[0].artifact'],
    ['as a partition key', (g) => g.updateSession(jt, { session_id: 'e1' }, { now: NOW }), 'key'],
    ['as a batch call list', (g) => g.beginEventBatch(jt), 'calls'],
    ['as a static argument', () => toInjectedFileRef(jt, 'e0'), 'file'],
  ];
  for (const [label, call, path] of misplaced) {
    test(label, () => {
      const g = gate();
      const before = g.sessions();
      refuses(() => call(g), 'invalid_type', path);
      assert.deepEqual(g.sessions(), before);
    });
  }

  test('the constructor takes a non-empty string', () => {
    refuses(() => new JsonText(5), 'invalid_type', 'text');
    refuses(() => new JsonText(null), 'invalid_type', 'text');
    refuses(() => new JsonText(''), 'invalid_json', 'text');
  });

  test('an object made without the constructor is refused, not a TypeError', () => {
    const forged = Object.create(JsonText.prototype);
    assert.ok(forged instanceof JsonText);
    refuses(() => gate().foldResults('event', forged, { now: NOW }), 'invalid_value', 'results');
  });

  test("another copy's JsonText (the CommonJS entry's, given to an ESM gate) is named, not misread", () => {
    const cjs = createRequire(import.meta.url)('../../pkg/node.cjs');
    const foreign = new cjs.JsonText('{"session_id":"e9","files":[{"id":"f","name":"f.txt"}]}');
    const g = gate();
    const before = g.sessions();
    // Read as a string, the artifact would fold nothing without a word (the SDK ignores it).
    const e = refuses(() => g.updateSession('execute_code', foreign, { now: NOW }), 'invalid_type', 'artifact');
    assert.match(e.message, /another copy of the package/);
    assert.notEqual(cjs.JsonText, JsonText);
    refuses(() => g.foldResults('event', new cjs.JsonText('[]'), { now: NOW }), 'invalid_type', 'results');
    refuses(() => g.foldResults('event', [{ name: 'bash_tool', status: 'success', artifact: foreign }], { now: NOW }), 'invalid_type', 'results[0].artifact');
    assert.deepEqual(g.sessions(), before);
  });

  test('it is frozen, and JSON.stringify of an object holding one writes its text as a string', () => {
    const t = new JsonText('[1]');
    assert.ok(Object.isFrozen(t));
    assert.equal(JSON.stringify({ a: t }), '{"a":"[1]"}');
  });
});
