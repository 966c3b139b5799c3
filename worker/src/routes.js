// The worker's routes, read from the request line as the caller sent it. Paths are checked before URL
// parsing would resolve them: WHATWG URLs fold `..`, `%2e%2e` and (for http) `\` away, which would turn
// `files/../../other` into another route instead of a refusal.
import { ROUTES } from './contract.js';
import { Refusal } from './errors.js';

/** A conversation id, as the caller names it (scoped to the caller: see conversationName). */
const CONVERSATION = /^[A-Za-z0-9._:-]{1,128}$/;
/** Longest file name (relative path) the worker handles; the sandboxes allow 255 per name. */
const MAX_NAME = 255;

/**
 * @typedef {{ conversation: string, action: 'snapshot' | 'delete' | 'tool-calls' | 'prime' | 'list' | 'upload' | 'download' | 'trace', name?: string }} Route
 */

/** The kind of a conversation path, by its template in the contract. */
const KINDS = {
  '/conversations/{id}': 'snapshot',
  '/conversations/{id}/tool-calls': 'tool-calls',
  '/conversations/{id}/files': 'files',
  '/conversations/{id}/files/{name}': 'file',
  '/conversations/{id}/trace': 'trace',
};

/** The methods each kind of path answers (for 405's `Allow`), from the contract (src/contract.js). */
const METHODS = /** @type {Record<string, Record<string, Route['action']>>} */ ({});
for (const r of ROUTES) {
  const kind = KINDS[/** @type {keyof typeof KINDS} */ (r.path)];
  if (kind !== undefined) (METHODS[kind] ??= {})[r.method] = /** @type {Route['action']} */ (r.action);
}

/** The contract's one route without a caller's token: the OpenAPI document. */
export const OPENAPI_PATH = '/openapi.json';

const invalidPath = (message) => new Refusal(400, 'invalid_path', message);

/** A percent-decoded path segment; a malformed escape is refused. @param {string} raw */
function decode(raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidPath('the path has a malformed percent escape');
  }
}

/**
 * A file name from the path's remaining raw segments (an encoded `/` also separates directories): a
 * relative POSIX path with no empty, `.` or `..` part, no backslash, NUL or control character.
 * @param {string[]} rawSegments
 */
export function fileName(rawSegments) {
  const name = rawSegments.map(decode).join('/');
  if (name === '' || name.length > MAX_NAME) throw invalidPath(`a file name is 1 to ${MAX_NAME} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(name)) throw invalidPath('a file name has no backslash, NUL or control character');
  if (name.startsWith('/')) throw invalidPath('a file name is relative (no leading /)');
  if (name.split('/').some((p) => p === '' || p === '.' || p === '..')) {
    throw invalidPath('a file name has no empty, . or .. part');
  }
  return name;
}

/**
 * The route a request asks for, or a `Refusal` (400 bad path, 404 no such route, 405 wrong method).
 * @param {Request} request
 * @returns {Route}
 */
export function routeOf(request) {
  // The path as sent: scheme and authority off, query and fragment off, nothing resolved.
  const raw = request.url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '').replace(/[?#].*$/s, '');
  if (/\\|%5c|%00/i.test(raw)) throw invalidPath('the path has a backslash or NUL');
  const segments = raw.split('/').slice(1);
  if (segments.some((s) => ['.', '..'].includes(decode(s)))) throw invalidPath('the path has a . or .. segment');
  const [head, id, sub, ...rest] = segments;
  if (head !== 'conversations' || id === undefined) throw new Refusal(404, 'not_found', 'routes are under /conversations/:id (worker/README.md)');
  const conversation = decode(id);
  if (!CONVERSATION.test(conversation)) throw new Refusal(404, 'not_found', 'a conversation id is 1 to 128 characters of A-Z a-z 0-9 . _ : -');
  const kind = sub === undefined ? 'snapshot' : sub === 'tool-calls' && rest.length === 0 ? 'tool-calls' : sub === 'trace' && rest.length === 0 ? 'trace' : sub === 'files' ? (rest.length === 0 ? 'files' : 'file') : undefined;
  if (kind === undefined) throw new Refusal(404, 'not_found', `no route ${raw}`);
  const action = /** @type {Record<string, Route['action']>} */ (METHODS[kind])[request.method];
  if (action === undefined) {
    const allow = Object.keys(METHODS[kind]).join(', ');
    throw new Refusal(405, 'method_not_allowed', `${request.method} is not allowed here; use ${allow}`, { allow });
  }
  return kind === 'file' ? { conversation, action, name: fileName(rest) } : { conversation, action };
}

/**
 * The Durable Object name of a user's conversation: a JSON array of the two, which no other pair
 * encodes to, so the same conversation id under two users is two objects.
 * @param {string} user
 * @param {string} conversation
 */
export const conversationName = (user, conversation) => JSON.stringify([user, conversation]);
