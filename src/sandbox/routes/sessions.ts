/**
 * Sessions (wire-reference §5): list, delete, refresh.
 *
 * - `GET /auth/sessions?accountId=` → `200 { data: [AuthSession] }`, active only, never with a
 *   sealed key, oldest first.
 * - `DELETE /auth/sessions/{id}` → `202` → retry signed by any active session of the account
 *   (itself included) → `204`. Not active (unknown, expired, revoked) → `404 SESSION_NOT_FOUND`
 *   on either leg.
 * - `POST /auth/sessions/{id}/refresh` `{ clientPublicKey }` (same on both legs) → `202` → retry
 *   signed by that session's key → `201 AuthSession` with a new id and a fresh 15-minute lifetime.
 *   The old session is left to expire on its own (see domain/sessions.ts). An uncompressed key
 *   gives a legacy sealed key. A key that backed a session before → `400 INVALID_INPUT` (one key,
 *   one session: domain/sessions.ts).
 */
import { json, noContent, type RequestContext } from '../context.js';
import { assertFreshClientKey, createSession } from '../domain/sessions.js';
import { requireActiveSession, requireAuthMethod, requireWallet } from '../lookups.js';
import type { Router } from '../router.js';
import { issueChallenge, verifyRetry } from '../signed-retry.js';
import { Fields, queryParam } from '../validate.js';
import { sessionView } from '../views.js';

function listSessions(ctx: RequestContext) {
  const accountId = queryParam(ctx.query, 'accountId', { required: true, max: 200 }) as string;
  const account = requireWallet(ctx.state, accountId);
  const { store, clock } = ctx.state;
  const data = store
    .activeSessionsOf(account.id, clock.now())
    .sort((a, b) => a.createdAt - b.createdAt)
    .flatMap((s) => {
      const m = store.authMethods.get(s.authMethodId);
      return m === undefined ? [] : [sessionView(ctx.state.config.profile, s, m)];
    });
  return json(200, { data });
}

function deleteSession(ctx: RequestContext) {
  const state = ctx.state;
  const session = requireActiveSession(state, ctx.param('id'));
  const account = requireWallet(state, session.accountId);
  const method = requireAuthMethod(state, session.authMethodId);
  const retry = verifyRetry(ctx);
  if (retry === null) {
    return issueChallenge(ctx, {
      type: 'DELETE_SESSION',
      organizationId: account.organizationId,
      parameters: { accountId: account.id, sessionId: session.id },
      signer: { kind: 'session', accountIds: [account.id] },
      extra: { type: method.type },
    });
  }
  session.revokedAt = state.clock.now();
  return noContent();
}

async function refreshSession(ctx: RequestContext) {
  const state = ctx.state;
  const session = requireActiveSession(state, ctx.param('id'));
  const account = requireWallet(state, session.accountId);
  const method = requireAuthMethod(state, session.authMethodId);
  const retry = verifyRetry(ctx);
  const f = Fields.of(ctx.body);
  f.onlyKnown(['clientPublicKey']);
  const parsed = f.publicKey('clientPublicKey', { required: true });
  f.done();
  const key = f.req(parsed);
  assertFreshClientKey(state, key);
  if (retry === null) {
    return issueChallenge(ctx, {
      type: 'REFRESH_SESSION',
      organizationId: account.organizationId,
      parameters: { accountId: account.id, sessionId: session.id, clientPublicKey: key.form === 'compressed' ? key.compressed : key.uncompressed },
      signer: { kind: 'session', accountIds: [account.id], sessionId: session.id },
      extra: { type: method.type },
    });
  }
  const created = await createSession(state, method, key);
  return json(201, created.view);
}

export function registerSessionRoutes(router: Router): void {
  router.get('/auth/sessions', listSessions);
  router.delete('/auth/sessions/:id', deleteSession);
  router.post('/auth/sessions/:id/refresh', refreshSession);
}
