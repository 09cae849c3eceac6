/**
 * The proxy's `authorize` hook for the demo: each browser is confined to the customer its demo
 * cookie names, and to that customer's accounts.
 *
 * - No demo cookie → `401 LOGIN_REQUIRED` (the app shows its start screen).
 * - `customerId` must be the user's; `accountId` and `fundingSourceId` must be the user's accounts.
 *   `POST /cards` also names its cardholder in `cardholderId` (a field the proxy does not read),
 *   checked here.
 * - Ids the proxy cannot tie to a customer by themselves (credential, session, quote, card,
 *   delegated key) are **looked up upstream** with the platform credentials — the demo does not
 *   try to track what each user created, because ids are also created by the service on its own
 *   (a refresh makes a new session id, adding a credential makes an AuthMethod id) and tracking
 *   would need to read the proxy's responses. A positive answer is remembered (ids never change
 *   owner), so each id costs one lookup at most. An id that is not the user's gets the same `404`
 *   the service gives an unknown id, so other users' ids are neither usable nor confirmed.
 * - A request that names no id at all (e.g. `GET /transactions` with no filter would list the
 *   whole platform) is refused.
 */
import type { AuthorizeContext, AuthorizeHook } from '../../src/proxy/index.js';
import { listData, UpstreamUnavailable, type Upstream } from './upstream.js';
import type { DemoCustomer, DemoUsers } from './users.js';

function jsonResponse(status: number, code: string, reason: string): Response {
  return new Response(JSON.stringify({ code, reason }), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  });
}

const notFound = (code: string, what: string) => jsonResponse(404, code, `No ${what} with this id on your wallet.`);

export function createAuthorize(users: DemoUsers, upstream: Upstream): AuthorizeHook {
  const refreshAccounts = async (user: DemoCustomer) => {
    const answer = await upstream.call('GET', '/internal-account', { query: { customerId: user.customerId, limit: '100' } });
    if (answer.status !== 200) return;
    const accounts = listData(answer);
    user.accountIds = new Set(accounts.map((a) => String(a.id)));
    user.walletAccountIds = accounts.filter((a) => a.type === 'EMBEDDED_WALLET').map((a) => String(a.id));
  };

  const ownsAccount = async (user: DemoCustomer, id: string) => {
    if (user.accountIds.has(id)) return true;
    await refreshAccounts(user);
    return user.accountIds.has(id);
  };

  /** Whether one of the user's wallets lists `id` at `path` (credentials or active sessions). */
  const listedOnWallets = async (user: DemoCustomer, path: string, id: string) => {
    if (user.owned.has(id)) return true;
    for (const accountId of user.walletAccountIds) {
      const answer = await upstream.call('GET', path, { query: { accountId } });
      for (const item of listData(answer)) if (item.id === id) user.owned.add(id);
    }
    return user.owned.has(id);
  };

  /** Fetches `path`; the record is the user's when `test` says so. */
  const lookUp = async (user: DemoCustomer, id: string, path: string, test: (record: Record<string, unknown>) => boolean | Promise<boolean>): Promise<boolean> => {
    if (user.owned.has(id)) return true;
    const answer = await upstream.call('GET', path);
    if (answer.status === 404) return false;
    if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null) {
      throw new UpstreamUnavailable(`The ownership lookup answered ${answer.status}`);
    }
    if (await test(answer.body as Record<string, unknown>)) user.owned.add(id);
    return user.owned.has(id);
  };

  const check = async (user: DemoCustomer, ctx: AuthorizeContext): Promise<boolean | Response> => {
    if (ctx.customerId !== undefined && ctx.customerId !== user.customerId) return false;
    if (ctx.accountId !== undefined && !(await ownsAccount(user, ctx.accountId))) return false;
    if (ctx.fundingSourceId !== undefined && !(await ownsAccount(user, ctx.fundingSourceId))) return false;
    if (ctx.method === 'POST' && ctx.pattern === '/cards') {
      const holder = (ctx.body as { cardholderId?: unknown } | undefined)?.cardholderId;
      if (holder !== user.customerId) return false;
    }
    if (ctx.credentialId !== undefined && !(await listedOnWallets(user, '/auth/credentials', ctx.credentialId))) {
      return notFound('AUTH_METHOD_NOT_FOUND', 'credential');
    }
    if (ctx.sessionId !== undefined && !(await listedOnWallets(user, '/auth/sessions', ctx.sessionId))) {
      return notFound('SESSION_NOT_FOUND', 'active session');
    }
    const owns = async (id: string, path: string, test: (r: Record<string, unknown>) => boolean | Promise<boolean>, code: string, what: string) => {
      // Unknown and not-yours look the same: the service's 404 for an unknown id.
      return (await lookUp(user, id, path, test)) ? true : notFound(code, what);
    };
    if (ctx.quoteId !== undefined) {
      const r = await owns(ctx.quoteId, `/quotes/${encodeURIComponent(ctx.quoteId)}`, (q) => ownsAccount(user, String((q.source as { accountId?: unknown } | undefined)?.accountId)), 'QUOTE_NOT_FOUND', 'quote');
      if (r !== true) return r;
    }
    if (ctx.cardId !== undefined) {
      const r = await owns(ctx.cardId, `/cards/${encodeURIComponent(ctx.cardId)}`, (c) => c.cardholderId === user.customerId, 'NOT_FOUND', 'card');
      if (r !== true) return r;
    }
    if (ctx.delegatedKeyId !== undefined) {
      const r = await owns(ctx.delegatedKeyId, `/auth/delegated-keys/${encodeURIComponent(ctx.delegatedKeyId)}`, (k) => ownsAccount(user, String(k.accountId)), 'NOT_FOUND', 'delegated key');
      if (r !== true) return r;
    }
    const named = [ctx.customerId, ctx.accountId, ctx.fundingSourceId, ctx.credentialId, ctx.sessionId, ctx.quoteId, ctx.cardId, ctx.delegatedKeyId];
    return named.some((id) => id !== undefined);
  };

  return async (request, ctx) => {
    const user = users.fromCookieHeader(request.headers.get('cookie'));
    if (user === undefined) return jsonResponse(401, 'LOGIN_REQUIRED', 'Create or pick a demo customer first.');
    try {
      return await check(user, ctx);
    } catch (e) {
      if (e instanceof UpstreamUnavailable) return jsonResponse(502, 'UPSTREAM_UNAVAILABLE', 'The service could not be reached.');
      throw e;
    }
  };
}
