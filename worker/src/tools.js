// What each tool runs in the sandbox. The gate decides which session and files a call gets; the host
// (this worker) decides what the call executes. Built-in code tools (`execute_code`, `bash_tool`) carry
// their code in the model's arguments and need nothing here; the host-declared file tools are turned into
// a small Python program, as LibreChat does, with the model's text passed as base64 so that no quoting
// of paths or contents can break out of it.

/** Where relative paths land: the sandbox's working directory. */
const DATA_DIR = '/mnt/data';

/**
 * The argument names each host tool accepts for its path (LibreChat has used both `file_path` and
 * `path` for `create_file`): the first one present wins.
 */
export const PATH_ARGUMENTS = ['file_path', 'path'];

/** @param {Record<string, unknown>} args */
function pathOf(args) {
  for (const key of PATH_ARGUMENTS) {
    const v = args[key];
    if (typeof v === 'string' && v !== '') return v.startsWith('/') ? v : `${DATA_DIR}/${v}`;
  }
  throw new ToolInputError(`one of ${PATH_ARGUMENTS.join(', ')} is required`);
}

/** A model's arguments that the host tool cannot run. */
export class ToolInputError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ToolInputError';
  }
}

/** UTF-8 text → base64 (btoa only takes Latin-1). */
function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * A Python program that reads its input from one base64 JSON payload; the path is also written in the
 * clear (a JSON string is a valid Python literal), so the program reads as what it does.
 */
function python(payload, body) {
  return `import base64, json, os, sys\nP = json.loads(base64.b64decode(${JSON.stringify(base64(JSON.stringify(payload)))}).decode('utf-8'))\nP['path'] = ${JSON.stringify(payload.path)}\n${body}`;
}

const CREATE = `
p = P['path']
if os.path.exists(p) and not P['overwrite']:
    sys.stderr.write(f"{p} exists (pass overwrite: true to replace it)\\n"); sys.exit(1)
d = os.path.dirname(p)
if d: os.makedirs(d, exist_ok=True)
data = P['content'].encode('utf-8')
with open(p, 'wb') as f: f.write(data)
print(f"WROTE {len(data)} bytes to {p}")
`;

const EDIT = `
p = P['path']
try:
    text = open(p, encoding='utf-8').read()
except FileNotFoundError:
    sys.stderr.write(f"{p}: not found\\n"); sys.exit(1)
for i, e in enumerate(P['edits']):
    n = text.count(e['old_text'])
    if n != 1:
        sys.stderr.write(f"edit {i}: old_text occurs {n} times in {p} (it must occur once)\\n"); sys.exit(1)
    text = text.replace(e['old_text'], e['new_text'], 1)
data = text.encode('utf-8')
with open(p, 'wb') as f: f.write(data)
print(f"EDITED {p}: {len(P['edits'])} edit(s), {len(data)} bytes")
`;

const READ = `
p = P['path']
try:
    sys.stdout.write(open(p, encoding='utf-8').read())
except FileNotFoundError:
    sys.stderr.write(f"{p}: No such file or directory\\n"); sys.exit(1)
`;

/** @param {Record<string, unknown>} args */
function editsOf(args) {
  if (Array.isArray(args.edits)) {
    return args.edits.map((e, i) => {
      if (!e || typeof e.old_text !== 'string' || typeof e.new_text !== 'string') {
        throw new ToolInputError(`edits[${i}] needs old_text and new_text strings`);
      }
      return { old_text: e.old_text, new_text: e.new_text };
    });
  }
  if (typeof args.old_text === 'string' && typeof args.new_text === 'string') {
    return [{ old_text: args.old_text, new_text: args.new_text }];
  }
  throw new ToolInputError('old_text and new_text, or edits, are required');
}

/**
 * The host tools this worker knows how to run, by name: each maps the model's arguments to what runs.
 * @type {Record<string, (args: Record<string, unknown>) => { lang: string, code: string }>}
 */
export const HOST_TOOLS = {
  create_file(args) {
    if (typeof args.content !== 'string') throw new ToolInputError('content (a string) is required');
    return { lang: 'py', code: python({ path: pathOf(args), content: args.content, overwrite: args.overwrite === true }, CREATE) };
  },
  edit_file(args) {
    return { lang: 'py', code: python({ path: pathOf(args), edits: editsOf(args) }, EDIT) };
  },
  read_file(args) {
    return { lang: 'py', code: python({ path: pathOf(args) }, READ) };
  },
};

/** The built-in code tools, which carry what they run in their arguments. */
export const BUILT_IN_RUNNERS = new Set(['execute_code', 'bash_tool']);

/**
 * What `name` runs for `args`: `undefined` for a built-in tool (the gate reads its arguments), the
 * host's program for a host tool; throws `ToolInputError` for a tool this worker cannot run.
 */
export function runFor(name, args) {
  if (BUILT_IN_RUNNERS.has(name)) return undefined;
  const tool = Object.hasOwn(HOST_TOOLS, name) ? HOST_TOOLS[name] : undefined;
  if (!tool) throw new ToolInputError(`${name} is not a tool this worker runs in the sandbox`);
  return tool(args);
}
