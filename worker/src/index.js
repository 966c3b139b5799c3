// An edge worker that gates an LLM's tool calls and forwards them to a code sandbox, as a service:
// every route needs a caller's token, each user's conversations are their own Durable Objects, the
// user's own object holds their limits and the refs they were given, and files go in and out through
// the worker (which alone holds the sandbox's credential, or mints one per request and user).
//
//   GET  /conversations/:id                  the conversation's gate snapshot
//   POST /conversations/:id/tool-calls       { calls: [{ id, name, args }], agent?: { codeSessionKey? } }
//   GET  /conversations/:id/files            the partition's files            (?agent=<codeSessionKey>)
//   PUT  /conversations/:id/files/:name      upload (raw body), primed into the partition (?agent=…)
//   GET  /conversations/:id/files/:name      download the partition's current version (?agent=…)
//   POST /conversations/:id/files            { files: [FileRef], agent? }: prime refs the worker gave
//                                            this user (a host's token: skill and agent refs too)
//
// worker/README.md documents the token's claims, the limits and every error. Calls of one
// request form one event batch, as the SDK's ToolNode dispatches them: every call sees the session as it
// was before the batch, and the answers are folded together once all are back.
import { authenticate } from './auth.js';
import { ISSUER_HEADER, REQUEST_HEADER, SCOPE_HEADER, USER_HEADER } from './conversation.js';
import { ERROR_CODE_HEADER, REQUEST_ID_HEADER, answerFor, logLine } from './errors.js';
import { limitsFrom, readBody } from './limits.js';
import { openApiDocument } from './openapi.js';
import { OPENAPI_PATH, conversationName, routeOf } from './routes.js';
import { TRAIL_HEADER } from './trail.js';
import { userCall } from './user.js';

export { Conversation } from './conversation.js';
export { User } from './user.js';

/**
 * The request the conversation's object gets: the caller's body (read within its limit), its content
 * type, the authenticated user and the request's id; not the caller's token, nor any other header of theirs.
 * @param {Request} request
 * @param {import('./routes.js').Route} route
 * @param {ReturnType<typeof limitsFrom>} limits
 * @param {{ user: string, issuer: string, scopes: string[] }} caller
 * @param {string} requestId
 */
async function inward(request, route, limits, { user, issuer, scopes }, requestId) {
  const headers = { [USER_HEADER]: user, [ISSUER_HEADER]: issuer, [SCOPE_HEADER]: scopes.join(' '), [REQUEST_HEADER]: requestId };
  const type = request.headers.get('content-type');
  if (type !== null) headers['content-type'] = type;
  if (request.method === 'GET') return new Request(request.url, { method: 'GET', headers });
  const body =
    route.action === 'upload'
      ? await readBody(request, limits.MAX_FILE_BYTES, 'a file (MAX_FILE_BYTES)')
      : await readBody(request, limits.MAX_BODY_BYTES, 'a request body (MAX_BODY_BYTES)');
  return new Request(request.url, { method: request.method, headers, body });
}

/**
 * A user in the log: 16 hex digits of the SHA-256 of the issuer and `sub`, enough to follow one user
 * through the log, never the user id itself.
 * @param {{ user: string, issuer: string }} caller
 */
async function userHash({ user, issuer }) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(['code-session-gate-worker/log', issuer, user])));
  return [...new Uint8Array(digest, 0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The request's one log line (Workers Logs, `wrangler tail`): its id, route, user (hashed),
 * conversation, tool calls, what it did at the sandbox (each request's kind, status and time) and how it
 * ended. Never a token, a credential, a setting's value or a file byte.
 * @param {Response} res the answer, whose trail header (from the conversation) is read and dropped
 * @param {{ requestId: string, method: string, route: { action: string, conversation: string | null } | undefined,
 *   caller: { user: string, issuer: string } | undefined, started: number }} request
 */
async function logged(res, { requestId, method, route, caller, started }) {
  const trailText = res.headers.get(TRAIL_HEADER);
  let answer = res;
  if (trailText !== null) {
    answer = new Response(res.body, res);
    answer.headers.delete(TRAIL_HEADER);
  }
  let trail = {};
  try {
    trail = trailText === null ? {} : JSON.parse(trailText);
  } catch {
    trail = {};
  }
  const code = res.status >= 400 ? answer.headers.get(ERROR_CODE_HEADER) ?? undefined : undefined;
  logLine(res.status >= 500 ? 'error' : 'info', {
    msg: 'request',
    requestId,
    method,
    route: route?.action ?? null,
    user: caller ? await userHash(caller) : null,
    conversation: route?.conversation ?? null,
    ...trail,
    status: res.status,
    ...(code !== undefined ? { code } : {}),
    ms: Date.now() - started,
  });
  return answer;
}

export default {
  /** @param {Request} request @param {any} env */
  async fetch(request, env) {
    // Every answer names its request (`x-request-id`, and `error.requestId`): the worker's log says the rest.
    const requestId = crypto.randomUUID();
    const started = Date.now();
    /** @type {{ user: string, issuer: string, scopes: string[] } | undefined} */
    let caller;
    /** @type {import('./routes.js').Route | undefined} */
    let route;
    let res;
    try {
      // The contract is public (it says nothing of the configuration); everything else needs a caller.
      if (request.method === 'GET' && new URL(request.url).pathname === OPENAPI_PATH) {
        const doc = Response.json(openApiDocument(), { headers: { [REQUEST_ID_HEADER]: requestId, 'cache-control': 'public, max-age=300' } });
        return logged(doc, { requestId, method: 'GET', route: { action: 'openapi', conversation: null }, caller, started });
      }
      // Who is asking comes first: an unauthenticated caller learns nothing, not even which routes exist.
      caller = await authenticate(request, env);
      route = routeOf(request);
      const limits = limitsFrom(env);
      // The user's own limits, across all their conversations, before a byte of the body is read.
      await userCall(env, caller.user, 'admit', { runs: route.action === 'tool-calls' });
      const forwarded = await inward(request, route, limits, caller, requestId);
      const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(conversationName(caller.user, route.conversation)));
      res = await stub.fetch(forwarded);
    } catch (e) {
      res = answerFor(e, requestId);
    }
    return logged(res, { requestId, method: request.method, route, caller, started });
  },
};
