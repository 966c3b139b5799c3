// The inputs of bench/run.mjs and bench/memory.mjs: partition files, the artifacts of a turn and of a
// 50-call conversation, the wire turn's codeapi answers, the verdict names and the configuration every
// side gets.

/** Host tools that share the code session (the gate's / ToolNode's `codeSessionToolNames`). */
export const TOOL_NAMES = ['create_file', 'edit_file', 'read_file'];
/** Stateful sessions on, so participants also get the runtime hint (`threadId`). */
export const TOOL_EXECUTION = { sandbox: { statefulSessions: true } };
export const THREAD_ID = 't1';
export const KEY = 'execute_code';
/** Exec session id of the seeded partition. */
export const SEED_SESSION = 'exec-seed';
/** New output files of every execution: fixed names, so the partition stays bounded. */
export const OUTPUTS_PER_CALL = 5;
/** Size of the rotating artifact pool of the turn scenario. */
export const ARTIFACT_POOL = 64;
/** Tool calls of one conversation and its partition size. */
export const CONVERSATION_CALLS = 50;
export const CONVERSATION_FILES = 20;
/** Seeded files of the memory run's gate (the partition then holds these plus the 5 outputs). */
export const MEMORY_FILES = 1;
/** The tools a conversation alternates between (web_search does not participate: never folded). */
export const CONVERSATION_TOOLS = ['bash_tool', 'create_file', 'execute_code', 'web_search'];

/** Mixed names for the verdict scenario (16, rotated with `& 15`): 8 participants, 8 not. */
export const VERDICT_NAMES = Object.freeze([
  'execute_code', 'web_search', 'bash_tool', 'calculator', 'create_file', 'x'.repeat(40),
  'run_tools_with_code', 'image_gen', 'edit_file', 'skill', 'read_file', 'fetch_url',
  'run_tools_with_bash', 'search_documents', 'execute_code', 'bash',
]);

/**
 * `n` stored files: ids `file-${i}-abcdefghij`, names `dir/data-${i}.csv`, three storage buckets,
 * every 7th a versioned skill file.
 * @returns {Array<{ id: string, name: string, storage_session_id: string, kind?: 'skill', version?: number, resource_id?: string }>}
 */
export function makeFiles(n) {
  return Array.from({ length: n }, (_, i) => ({
    id: `file-${i}-abcdefghij`,
    name: `dir/data-${i}.csv`,
    storage_session_id: `storage-${i % 3}-abcdefgh`,
    ...(i % 7 === 0 ? { kind: 'skill', version: 3, resource_id: 'skill-r' } : {}),
  }));
}

/** The seeded partition entry (a fresh copy per call). */
export function seedEntry(n) {
  return { session_id: SEED_SESSION, files: makeFiles(n), lastUpdated: 1 };
}

/** `[[KEY, entry]]` for a gate / port, or a Map for a ToolNode. */
export const seedPairs = (/** @type {number} */ n) => /** @type {Array<[string, ReturnType<typeof seedEntry>]>} */ ([[KEY, seedEntry(n)]]);
export const seedMap = (/** @type {number} */ n) => new Map(seedPairs(n));

/**
 * The artifact of one execution: inherited echoes `{ id, name, storage_session_id, inherited }` of
 * every seeded file, plus OUTPUTS_PER_CALL new outputs `out-0.txt` … with ids unique to `tag`.
 */
export function makeArtifact(n, sessionId, tag) {
  const echoes = makeFiles(n).map(({ id, name, storage_session_id }) => ({ id, name, storage_session_id, inherited: true }));
  const outputs = Array.from({ length: OUTPUTS_PER_CALL }, (_, j) => ({ id: `${tag}-out-${j}-0123456789`, name: `out-${j}.txt` }));
  return { session_id: sessionId, files: [...echoes, ...outputs] };
}

/** The turn scenario's pool: ARTIFACT_POOL artifacts rotated by iteration. */
export function artifactPool(n) {
  return Array.from({ length: ARTIFACT_POOL }, (_, k) => makeArtifact(n, `exec-${k}`, `t${k}`));
}

/** One conversation: per call its id, tool name and artifact. */
export function conversation() {
  return Array.from({ length: CONVERSATION_CALLS }, (_, j) => ({
    id: `call-${j}`,
    name: CONVERSATION_TOOLS[j % CONVERSATION_TOOLS.length],
    artifact: makeArtifact(CONVERSATION_FILES, `exec-c${j}`, `c${j}`),
  }));
}

// ------------------------------------------------------------------------------------- wire turn
// The wire turn forwards a bash_tool call to codeapi: its inputs must pass codeapi's checks (21-character
// ids and storage session ids), or the gate leaves the refs out of the request.

/** The call of every wire turn (one call per event batch). */
export const WIRE_CALL = Object.freeze({ id: 'call-wire', name: 'bash_tool', args: Object.freeze({ command: 'python3 /mnt/data/run.py' }) });
/** The host's `userId` and `timeoutMs` for the `/exec` request. */
export const WIRE_USER = 'user-bench';
export const WIRE_TIMEOUT_MS = 30_000;

/** A codeapi id (21 of `A-Z a-z 0-9 _ -`): `tag` (distinct tags of the form `X-12-` give distinct ids) and a fixed filler. */
export function nanoid21(/** @type {string} */ tag) {
  if (tag.length > 21 || !/^[A-Za-z0-9_-]*$/.test(tag)) throw new Error(`nanoid21: bad tag ${tag}`);
  return tag + '0123456789abcdefghijk'.slice(tag.length);
}

/** Exec session id of the wire turn's seeded partition. */
export const WIRE_SEED_SESSION = nanoid21('E-seed-');

/**
 * `n` stored files as `makeFiles` makes them, with codeapi ids: ids `F-${i}-…`, three storage buckets
 * `S-${i % 3}-…`, every 7th a versioned skill file.
 * @returns {Array<{ id: string, name: string, storage_session_id: string, kind?: 'skill', version?: number, resource_id?: string }>}
 */
export function makeWireFiles(n) {
  return Array.from({ length: n }, (_, i) => ({
    id: nanoid21(`F-${i}-`),
    name: `dir/data-${i}.csv`,
    storage_session_id: nanoid21(`S-${i % 3}-`),
    ...(i % 7 === 0 ? { kind: 'skill', version: 3, resource_id: 'skill-r' } : {}),
  }));
}

/** `[[KEY, entry]]` of the wire turn (a fresh copy per call), and the same as a Map for a ToolNode. */
export const wireSeedPairs = (/** @type {number} */ n) =>
  /** @type {Array<[string, { session_id: string, files: ReturnType<typeof makeWireFiles>, lastUpdated: number }]>} */ (
    [[KEY, { session_id: WIRE_SEED_SESSION, files: makeWireFiles(n), lastUpdated: 1 }]]);
export const wireSeedMap = (/** @type {number} */ n) => new Map(wireSeedPairs(n));

/**
 * codeapi's answer body (JSON text) to the `k`-th execution: a fresh exec session id, the inherited
 * echoes `{ id, name, storage_session_id, inherited: true }` of every seeded file (what codeapi echoes of an
 * unchanged input), then OUTPUTS_PER_CALL new outputs `out-0.txt` … stored under the exec session, with ids
 * unique to `k`; stdout and stderr.
 */
export function wireAnswer(/** @type {number} */ n, /** @type {number} */ k) {
  const sessionId = nanoid21(`E-${k}-`);
  const echoes = makeWireFiles(n).map(({ id, name, storage_session_id }) => ({ id, name, storage_session_id, inherited: true }));
  const outputs = Array.from({ length: OUTPUTS_PER_CALL }, (_, j) => ({ id: nanoid21(`O-${k}-${j}-`), name: `out-${j}.txt`, storage_session_id: sessionId }));
  return JSON.stringify({ session_id: sessionId, files: [...echoes, ...outputs], stdout: `wrote ${OUTPUTS_PER_CALL} files\n`, stderr: '' });
}

/** The wire turn's pool: ARTIFACT_POOL answer bodies rotated by iteration. */
export function wireAnswerPool(/** @type {number} */ n) {
  return Array.from({ length: ARTIFACT_POOL }, (_, k) => wireAnswer(n, k));
}
