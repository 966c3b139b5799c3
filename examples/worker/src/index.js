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
// examples/worker/README.md documents the token's claims, the limits and every error. Calls of one
// request form one event batch, as the SDK's ToolNode dispatches them: every call sees the session as it
// was before the batch, and the answers are folded together once all are back.
import { authenticate } from './auth.js';
import { SCOPE_HEADER, USER_HEADER } from './conversation.js';
import { Refusal, problem, refused } from './errors.js';
import { limitsFrom, readBody } from './limits.js';
import { conversationName, routeOf } from './routes.js';
import { userCall } from './user.js';

export { Conversation } from './conversation.js';
export { User } from './user.js';

/**
 * The request the conversation's object gets: the caller's body (read within its limit), its content
 * type, and the authenticated user; not the caller's token, nor any other header of theirs.
 * @param {Request} request
 * @param {import('./routes.js').Route} route
 * @param {ReturnType<typeof limitsFrom>} limits
 * @param {{ user: string, scopes: string[] }} caller
 */
async function inward(request, route, limits, { user, scopes }) {
  const headers = { [USER_HEADER]: user, [SCOPE_HEADER]: scopes.join(' ') };
  const type = request.headers.get('content-type');
  if (type !== null) headers['content-type'] = type;
  if (request.method === 'GET') return new Request(request.url, { method: 'GET', headers });
  const body =
    route.action === 'upload'
      ? await readBody(request, limits.MAX_FILE_BYTES, 'a file (MAX_FILE_BYTES)')
      : await readBody(request, limits.MAX_BODY_BYTES, 'a request body (MAX_BODY_BYTES)');
  return new Request(request.url, { method: request.method, headers, body });
}

export default {
  /** @param {Request} request @param {any} env */
  async fetch(request, env) {
    try {
      // Who is asking comes first: an unauthenticated caller learns nothing, not even which routes exist.
      const caller = await authenticate(request, env);
      const route = routeOf(request);
      const limits = limitsFrom(env);
      // The user's own limits, across all their conversations, before a byte of the body is read.
      await userCall(env, caller.user, 'admit', { runs: route.action === 'tool-calls' });
      const forwarded = await inward(request, route, limits, caller);
      const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(conversationName(caller.user, route.conversation)));
      return await stub.fetch(forwarded);
    } catch (e) {
      if (e instanceof Refusal) return refused(e);
      return problem(500, 'internal', `the worker failed: ${e?.message ?? e}`);
    }
  },
};
