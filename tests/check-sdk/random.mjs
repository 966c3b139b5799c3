// Random conformance vectors (the shipped vectors' format) for a differential run of check-sdk: the gate
// and an SDK release answer the same generated inputs, and any difference is a disagreement. The inputs
// lean on the edges: names a plain object would answer for (`toString`, `__proto__`), empty strings,
// duplicate ids and names, null and absent storage ids, unknown kinds, skills with and without versions,
// inherited echoes, arguments that need coercing or do not parse. `expect` is left empty: check-sdk
// compares the two answers, not the vectors'.
//
// They leave out what the README lists as refused on purpose ("Beyond and beside the SDK"): string
// versions, non-string ids or names, null session ids, unknown option values.

/** A deterministic generator (a 31-bit linear congruential one: the same seed, the same vectors). */
export function generator(seed) {
  let s = seed >>> 0 || 1;
  const rnd = () => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  /** @template T @param {readonly T[]} a @returns {T} */
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const maybe = (p = 0.5) => rnd() < p;
  const upTo = (n) => Math.floor(rnd() * (n + 1));
  return { rnd, pick, maybe, upTo };
}

const KEYS = ['execute_code', 'bash_tool', 'execute_code:stateful:u1', 'toString'];
const SESSIONS = ['s1', 's2', 'exec-old', 'exec-new'];
const NAMES = ['execute_code', 'bash_tool', 'run_tools_with_code', 'create_file', 'read_file', 'web_search', '', 'toString', '__proto__', 'constructor', 'Bash_Tool'];

/** The vectors of one run: `count` of them, spread over every op check-sdk drives. */
export function randomVectors(seed, count) {
  const { pick, maybe, upTo } = generator(seed);

  function file() {
    const f = { id: pick(['f1', 'f2', 'f3', 'shared-id', '']), name: pick(['a.txt', 'b.csv', 'dir/a.txt', 'SKILL.md', 'ünï.txt', '']) };
    if (maybe(0.6)) f.storage_session_id = pick([...SESSIONS, '', null]);
    if (maybe(0.3)) f.kind = pick(['user', 'agent', 'skill', 'other', null]);
    if (maybe(0.3)) f.resource_id = pick(['r1', 'r2', '', null]);
    if (maybe(0.3)) f.version = pick([1, 2, 0, 1.5, -1, 1e21, null]);
    if (maybe(0.25)) f.inherited = pick([true, false]);
    if (maybe(0.15)) f.session_id = pick(SESSIONS);
    if (maybe(0.1)) f.path = pick(['/mnt/data/a.txt', null]);
    if (maybe(0.1)) f.extra = { k: pick([1, 'x', null]) };
    return f;
  }
  const files = (max = 4) => Array.from({ length: upTo(max) }, file);
  function sessions() {
    const out = [];
    const used = new Set();
    for (let i = upTo(2); i > 0; i--) {
      const key = pick(KEYS);
      if (used.has(key)) continue;
      used.add(key);
      out.push([key, { session_id: pick(SESSIONS), files: files(), lastUpdated: 1 }]);
    }
    return out;
  }
  /** Configuration members every gate-backed op takes. */
  function config() {
    const c = { sessions: sessions() };
    if (maybe(0.3)) c.code_session_tool_names = Array.from({ length: upTo(2) }, () => pick(NAMES));
    if (maybe(0.2)) c.code_session_key = pick(KEYS);
    if (maybe(0.3)) c.tool_execution = { sandbox: { statefulSessions: pick([true, false]) } };
    return c;
  }
  const result = () => ({
    name: pick(NAMES),
    status: pick(['success', 'success', 'error']),
    ...(maybe(0.85) ? { artifact: { session_id: pick(SESSIONS), ...(maybe(0.8) ? { files: files() } : {}) } } : {}),
  });
  const args = () =>
    pick([{ x: '2.5' }, { n: '3' }, { n: 3.5 }, { flag: 'true' }, { flag: 'yes' }, { s: 5 }, '{"n":"7"}', '{bad', '[1]', '', 'null', { x: '1e3', n: '-0' }, {}, { n: '' }, { x: ' 4 ' }, { n: '0x10' }, { x: 'Infinity' }, { command: 'ls' }]);

  const ops = {
    gate: () => ({ name: pick(NAMES), ...config() }),
    eager_excluded: () => ({
      name: pick(NAMES),
      ...(maybe(0.5) ? { agent_code_session_key: pick(KEYS) } : {}),
      ...(maybe(0.3) ? { exclude_tool_names: [pick(NAMES)] } : {}),
      ...(maybe(0.3) ? { suppressed_tool_names: [pick(NAMES)] } : {}),
      ...(maybe(0.3) ? { code_session_tool_names: [pick(NAMES)] } : {}),
      ...(maybe(0.3) ? { stateful_sessions: pick([true, false]) } : {}),
    }),
    narrow: () => ({ file: file(), exec_session_id: pick([...SESSIONS, '']) }),
    context_for_call: () => {
      const path = pick(['direct', 'event', 'eager']);
      // The SDK cannot plan a call named "" on the event path (it throws building the plan).
      const name = path === 'direct' ? pick(NAMES) : pick(NAMES.filter((n) => n !== ''));
      return { path, name, ...config(), ...(maybe(0.4) ? { thread_id: pick(['t1', '']) } : {}) };
    },
    update_session: () => ({ ...config(), key: pick(KEYS), exec_session_id: pick(SESSIONS), ...(maybe(0.8) ? { files: files(5) } : {}), ...(maybe(0.2) ? { deleted_files: [pick(['a.txt', 'b.csv', 'zzz'])] } : {}) }),
    fold_results: () => {
      const [path, drive] = pick([['event', 'method'], ['direct', 'method'], ['direct', 'batch'], ['event', 'batch']]);
      // Model arguments reach the SDK's tools only on the event batch's dispatch (the direct path's host
      // reports outcomes, which carry none).
      const withArgs = path === 'event' && drive === 'batch';
      return { path, drive, ...config(), results: Array.from({ length: 1 + upTo(2) }, () => ({ ...result(), ...(withArgs ? { args: args() } : {}) })) };
    },
    seed: () => {
      const agents = Array.from({ length: 1 + upTo(1) }, () => ({ ...(maybe(0.7) ? { codeSessionKey: pick(KEYS) } : {}), ...(maybe(0.8) ? { initial_sessions: sessions() } : {}) }));
      return maybe(0.5) ? { mode: 'agent', sessions: sessions(), agents } : { mode: 'run', sessions: sessions(), initial_sessions: sessions(), agents };
    },
    plan_request: () => ({
      calls: Array.from({ length: 1 + upTo(2) }, (_, i) => ({
        id: pick([`c${i}`, 'c0']),
        name: pick(['execute_code', 'tally', 'bash_tool', 'other']),
        ...(maybe(0.95) ? { args: args() } : {}),
        ...(maybe(0.2) ? { runtimeSessionHint: 'h' } : {}),
        ...(maybe(0.2) ? { codeSessionContext: { session_id: 's' } } : {}),
      })),
      ...(maybe(0.3) ? { invalid_args_behavior: pick(['error-result', 'abort']) } : {}),
      ...(maybe(0.7)
        ? {
            tool_schemas: {
              tally: pick([
                { type: 'object', properties: { n: { type: 'integer' }, flag: { type: 'boolean' }, s: { type: 'string' }, x: { type: 'number' } } },
                { type: 'object', properties: { n: { type: ['integer', 'null'] } }, additionalProperties: false },
                { type: 'object', properties: { n: { anyOf: [{ type: 'integer' }, { type: 'string' }] } } },
                { type: 'object' },
                { properties: { x: { type: 'number' } } },
              ]),
            },
          }
        : {}),
    }),
    exec_wire: () => {
      const tool = pick(['execute_code', 'bash_tool', 'run_tools_with_code', 'run_tools_with_bash']);
      const ref = () => {
        const f = { id: pick(['f1', 'o1']), name: pick(['a.txt', 'dir/b.csv', 'SKILL.md', '']) };
        if (maybe(0.7)) f.storage_session_id = pick([...SESSIONS, '', null]);
        if (maybe(0.3)) f.kind = pick(['user', 'agent', 'skill', 'weird']);
        if (maybe(0.3)) f.resource_id = pick(['r1', '', null]);
        if (maybe(0.3)) f.version = pick([1, 2.5, 0, null]);
        return f;
      };
      const factory = {};
      if (maybe(0.4)) factory.statefulSessions = pick([true, false]);
      if (maybe(0.3)) factory.executionProfile = pick(['default', 'gpu', '']);
      if (maybe(0.2)) factory.runtimeSessionHint = pick(['hint-f', '']);
      if (maybe(0.2)) factory.workspaceId = pick(['ws-1', '']);
      if (maybe(0.15)) factory.user_id = pick(['u1', '']);
      if (maybe(0.15)) factory.runTimeoutMs = pick([1000, 0, 90000, 1.5]);
      if (maybe(0.1)) factory.files = [ref()];
      if (maybe(0.1)) factory.session_id = pick(SESSIONS);
      const toolCall = {};
      if (maybe(0.4)) toolCall._runtime_session_hint = pick(['conv-1', '', 'x y']);
      if (maybe(0.3)) toolCall.session_id = pick([...SESSIONS, '']);
      if (maybe(0.35)) toolCall._injected_files = Array.from({ length: upTo(2) }, ref);
      const model = {};
      if (tool.endsWith('bash') || tool === 'bash_tool') {
        if (maybe(0.9)) model.command = pick(['ls', 'echo hi', '']);
        if (maybe(0.3)) model.code = 'ls -la';
      } else {
        if (maybe(0.9)) model.code = pick(['print(1)', '', 'x']);
        if (maybe(0.6)) model.lang = pick(['py', 'js', 'bash', 'r', 'nope']);
      }
      if (maybe(0.15)) model.args = pick([['a', 'b'], [], 'str']);
      if (maybe(0.1)) model.runtime_session_hint = 'm-hint';
      if (maybe(0.1)) model.intent = 'do';
      if (maybe(0.15)) model.timeout = pick([5, 100000, 0]);
      if (maybe(0.1)) model.session_id = 'model-sess';
      if (maybe(0.15) && tool.startsWith('run_tools')) model.tool_manifest = pick([[], [{ name: 't' }]]);
      if (maybe(0.1)) model.extra_key = 1;
      const v = { tool, factory, tool_call: toolCall, model_args: model };
      if (maybe(0.45)) {
        const r = { session_id: pick(['s9', 's1', '']), stdout: pick(['ok', '']), stderr: pick(['', 'err']) };
        if (maybe(0.6)) r.files = Array.from({ length: upTo(2) }, ref);
        if (maybe(0.3)) r.deleted_files = pick([[], ['a.txt'], ['dir/b.csv', 'x']]);
        if (maybe(0.2)) r.artifact_delivery = { code: 'artifact_delivery_failed', status: pick(['partial', 'failed']), attempted: 2, delivered: 1, failed: 1 };
        if (maybe(0.15)) r.status = pick(['completed', 'failed', 'timeout']);
        v.response = r;
      }
      return v;
    },
  };
  const names = Object.keys(ops);
  return Array.from({ length: count }, (_, i) => {
    const op = names[i % names.length];
    return { name: `random/${seed}/${op}/${i}`, op, input: ops[op](), expect: {}, profiles: ['3.6', '3.9'] };
  });
}
