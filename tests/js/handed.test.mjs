// What the gate handed out (its frozen fields, contexts, lists and refs), passed back by the host, is
// recognised by identity and not read again: the module gets the very text reading it would write. So
// every answer here is held to the answer for a structurally equal copy the host built, and what is
// not the gate's own object (a frozen lookalike, a Proxy of one) is read as the host's, once per call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as pkg from '../../pkg/node.js';
import { refuses } from './refuses.mjs';

const { Gate } = pkg;
const KEY = 'execute_code';
const FILES = Array.from({ length: 4 }, (_, i) => ({
  id: `f${i}`,
  name: `d/${i}.txt`,
  storage_session_id: 's0',
  ...(i === 0 ? { kind: 'skill', version: 2, resource_id: 'r' } : {}),
}));
const config = () => ({ toolExecution: { sandbox: { statefulSessions: true } }, sessions: [[KEY, { session_id: 'e0', files: FILES, lastUpdated: 1 }]] });
const OPTS = { threadId: 't' };
/** A deep copy the host built (no object of the gate's in it, nothing frozen). */
const copy = (v) => JSON.parse(JSON.stringify(v));

/** The same calls on two fresh gates, one passed what `pick` takes from its own context, one a copy. */
function both(pick, run) {
  const out = [];
  for (const own of [true, false]) {
    const gate = new Gate(config());
    try {
      const fields = gate.contextForCall('event', 'bash_tool', OPTS);
      const handed = pick(fields);
      out.push(run(gate, own ? handed : copy(handed)));
    } finally {
      gate.free();
    }
  }
  assert.deepEqual(out[0], out[1]);
  return out[0];
}

const fold = (files) => (gate) => {
  gate.foldResults('event', [{ name: 'bash_tool', status: 'success', artifact: { session_id: 'e1', files } }], { now: 2 });
  gate.updateSession('other', { session_id: 'e2', files }, { now: 3 });
  return [gate.session(KEY), gate.session('other'), gate.contextForCall('event', 'bash_tool', OPTS)];
};

test('a handed-out list, ref, context or fields object passed back answers as its copy does', () => {
  const [session] = both((f) => f.codeSessionContext.files, (gate, files) => fold(files)(gate));
  assert.equal(session.session_id, 'e1');
  both((f) => f.codeSessionContext.files[0], (gate, ref) => fold([ref, { id: 'n', name: 'n.txt' }])(gate));
  // Half the refs the gate's, half the host's.
  both((f) => f.codeSessionContext.files, (gate, files) => fold([...files.slice(0, 2), ...copy(files.slice(2))])(gate));
  // Whole contexts and fields where the module reads any data (and refuses what it must refuse alike).
  both((f) => f.codeSessionContext, (gate, ctx) => {
    gate.setSessions([[KEY, { ...ctx, lastUpdated: 5 }]]);
    return gate.sessions();
  });
  both((f) => f, (gate, fields) => {
    try {
      gate.updateSession(KEY, fields, { now: 4 });
    } catch (e) {
      return [e.code, e.path, e.message];
    }
    return gate.session(KEY);
  });
});

test("the text of a handed-out list is the same call after call, and after the gate's later generations", () => {
  const gate = new Gate(config());
  const twin = new Gate(config());
  const first = gate.contextForCall('event', 'bash_tool', OPTS).codeSessionContext.files;
  for (let t = 2; t < 40; t++) {
    // More generations than either side keeps: `first` is far older than the lists the gate holds.
    const files = [...first, { id: `o${t}`, name: 'out.txt' }];
    gate.updateSession(KEY, { session_id: `e${t}`, files }, { now: t });
    twin.updateSession(KEY, { session_id: `e${t}`, files: copy(files) }, { now: t });
    gate.contextForCall('event', 'bash_tool', OPTS);
    assert.deepEqual(gate.session(KEY), twin.session(KEY));
  }
  // A freed gate's list, and another gate's, are plain data to any gate.
  gate.free();
  const third = new Gate(config());
  third.updateSession('k', { session_id: 'x', files: first }, { now: 2 });
  twin.updateSession('k', { session_id: 'x', files: copy(first) }, { now: 41 });
  assert.deepEqual(third.session('k').files, twin.session('k').files);
  third.free();
  twin.free();
});

test("a frozen lookalike and a Proxy of a handed-out object are read as the host's, on every call", () => {
  const gate = new Gate(config());
  const files = gate.contextForCall('event', 'bash_tool', OPTS).codeSessionContext.files;
  let reads = 0;
  const lookalike = Object.freeze(files.map((f, i) => (i === 0 ? Object.freeze(Object.defineProperty({ ...f }, 'name', {
    enumerable: true,
    get() {
      reads += 1;
      return 'seen.txt';
    },
  })) : f)));
  gate.updateSession('a', { session_id: 'x', files: lookalike }, { now: 2 });
  gate.updateSession('b', { session_id: 'x', files: lookalike }, { now: 3 });
  assert.equal(reads, 2, 'each call reads the getter once');
  assert.equal(gate.session('a').files[0].name, 'seen.txt');
  let traps = 0;
  const proxy = new Proxy(files, {
    get(target, key, receiver) {
      traps += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  gate.updateSession('c', { session_id: 'x', files: proxy }, { now: 4 });
  assert.ok(traps > files.length, 'the Proxy is read through its traps, its length and every item');
  gate.updateSession('e', { session_id: 'x', files: copy(files) }, { now: 5 });
  assert.deepEqual(gate.session('c').files, gate.session('e').files);
  const throwing = new Proxy(files, {
    get() {
      throw new Error('trap');
    },
  });
  refuses(() => gate.updateSession('d', { session_id: 'x', files: throwing }, { now: 6 }), 'invalid_value', 'artifact.files');
  gate.free();
});

test("a toJSON added to the prototypes afterwards is honoured for the gate's objects as for any", () => {
  const run = (own) => {
    const gate = new Gate(config());
    const files = gate.contextForCall('event', 'bash_tool', OPTS).codeSessionContext.files;
    // Written once before the prototype changes (a text kept from then must not be used after).
    gate.updateSession('k', { session_id: 'x', files: own ? files : copy(files) }, { now: 2 });
    Object.defineProperty(Array.prototype, 'toJSON', { configurable: true, writable: true, value() { return this.slice(0, 1); } });
    try {
      gate.updateSession('k', { session_id: 'y', files: own ? files : copy(files) }, { now: 3 });
    } finally {
      delete Array.prototype.toJSON;
    }
    const out = gate.session('k');
    gate.free();
    return out;
  };
  const mine = run(true);
  assert.deepEqual(mine, run(false));
  assert.equal(mine.session_id, 'y');
});

test("a handed-out list nested past the depth limit is refused at the same path as its copy", () => {
  const gate = new Gate(config());
  const files = gate.contextForCall('event', 'bash_tool', OPTS).codeSessionContext.files;
  const nest = (v, n) => (n === 0 ? v : [nest(v, n - 1)]);
  // At 251 arrays the list's refs stand at the last level the layer writes (the module refuses the
  // shape); at 252 they are one past it, refused by the layer at the ref's path.
  for (const depth of [251, 252]) {
    const errors = [];
    for (const v of [files, copy(files)]) {
      try {
        gate.foldResults('event', [{ name: 'bash_tool', status: 'success', artifact: { session_id: 'e1', files: nest(v, depth) } }], { now: 2 });
        errors.push(null);
      } catch (e) {
        errors.push([e.code, e.path, e.message]);
      }
    }
    assert.notEqual(errors[0], null);
    assert.equal(errors[0][0], depth === 251 ? 'invalid_type' : 'invalid_value');
    assert.deepEqual(errors[0], errors[1]);
  }
  gate.free();
});

test("Array.prototype's prototype made a Proxy: a handed-out list is read as its copy is, refusals alike", () => {
  const gate = new Gate(config());
  const files = gate.contextForCall('event', 'bash_tool', OPTS).codeSessionContext.files;
  // Its text kept first, then the prototype chain changed under it.
  gate.updateSession('k', { session_id: 'x', files }, { now: 2 });
  const trap = new Proxy(Object.prototype, {
    has: (target, key) => (key === 'toJSON' ? assert.fail('has') : Reflect.has(target, key)),
    get: (target, key, receiver) => {
      if (key === 'toJSON') throw new Error('toJSON trap');
      return Reflect.get(target, key, receiver);
    },
  });
  const errors = [];
  const both = [files, copy(files)];
  Object.setPrototypeOf(Array.prototype, trap);
  try {
    for (const v of both) {
      try {
        gate.updateSession('k', { session_id: 'y', files: v }, { now: 3 });
        errors.push(null);
      } catch (e) {
        errors.push([e.code, e.path, e.message]);
      }
    }
  } finally {
    Object.setPrototypeOf(Array.prototype, Object.prototype);
  }
  assert.deepEqual(errors[0], errors[1]);
  assert.equal(errors[0]?.[0], 'invalid_value');
  gate.free();
});
