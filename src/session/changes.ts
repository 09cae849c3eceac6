/**
 * What changes an account's sessions, part two: a login's commit and the refresh (signing out other
 * devices is sign-out-others.ts, judging a refusal refusal.ts; both re-exported here). Same rules as operations.ts: inside the section, from a snapshot,
 * through `commitState`.
 *
 * Loaded on first use (a chunk of its own, not in the startup download: restoring sessions and
 * signing never need it). The manager loads it before the operation enters the account's queue and
 * lock (manager.ts, `withChanges`), never inside the critical section, so a slow or failed download
 * holds no lock and cannot delay a logout; nothing here enters the section itself.
 */
import { signerFromKey, type SessionKey, type Signer } from '../crypto/index.js';
import { WalletError, invalidArgument, isWalletError } from '../errors.js';
import { CREDENTIAL_TYPES, type AuthSession, type CredentialType } from '../types.js';
import { addEnding, committed, endWith, finishEnding, type OpsContext } from './operations.js';
import { isoOrUndefined, parseAuthSession, parseStoredSession } from './records.js';
import { LAST_ACCOUNT, commitState, readEnding, readSnapshot, writeEnding, type AccountState, type Snapshot } from './state.js';
import type { CriticalSections } from './critical-section.js';
import type { KeyPlan, LoginTicket, ManagedSessions, Session } from './types.js';
import { currentOf } from './view.js';
import { keyIn, refused, type RunInSection } from './refusal.js';

// What the manager and the tests take from this module, kept in modules of their own.
export { judge, keyIn, refused, rejected, rejection } from './refusal.js';
export { endOthers, othersOf, signOutOthers } from './sign-out-others.js';

/** Takes a session off the account's pending ends (a commit that listed it did not happen). */
export async function removeEnding(ctx: OpsContext, accountId: string, id: string): Promise<void> {
  const list = await readEnding(ctx.keyStore.meta, accountId);
  if (list.some((e) => e.id === id)) await writeEnding(ctx.keyStore.meta, accountId, list.filter((e) => e.id !== id));
}

/**
 * Stores a session a login made and makes it current. With the login's ticket, a logout requested
 * since the login started wins: the session is ended on the service (signed with its own key, no
 * prompt), its key dropped, NOT_LOGGED_IN thrown. Without one, the login commits. A session this
 * browser held for the same credential is replaced (I8): dropped from the state and made a pending
 * end (true is returned: the caller ends it on the service, with its own key, after the login).
 */
export async function addSession(ctx: OpsContext, snap: Snapshot, session: Session, key: SessionKey, ticket?: LoginTicket): Promise<boolean> {
  await ctx.keyStore.put({ publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: 'session', accountId: session.accountId, sessionId: session.id });
  const replaced = snap.state.sessions.filter((s) => s.id !== session.id && s.credentialId === session.credentialId);
  const sessions = [...snap.state.sessions.filter((s) => s.id !== session.id && s.credentialId !== session.credentialId), session];
  const from = ticket ? { ...snap, logoutNonce: ticket.logoutNonce } : snap;
  let written: AccountState | undefined;
  try {
    await addEnding(ctx, session.accountId, replaced.map((s) => ({ id: s.id, publicKeyHex: s.publicKeyHex, expiresAt: s.expiresAt })));
    written = await commitState(ctx.keyStore.meta, from, { sessions, current: session.id, change: 'login' }, { ignoreLogout: !ticket });
  } finally {
    if (!written) {
      // The sessions it would have replaced are still stored (and current): not to be ended.
      for (const s of replaced) await removeEnding(ctx, session.accountId, s.id).catch(() => undefined);
      // A pending end first (I1, I5, I8), so that a tab closing from here on leaves it to be finished
      // later; then ended with its own key (no prompt): its key and pending end are dropped only
      // once the service confirmed. Unreachable: the logout that won, or a later one, finishes it.
      await addEnding(ctx, session.accountId, [{ id: session.id, publicKeyHex: key.publicKeyHex, expiresAt: session.expiresAt }]).catch(() => undefined);
      if (await endWith(ctx, session.accountId, session.id, signerFromKey(key))) {
        await ctx.keyStore.delete(key.publicKeyHex).catch(() => undefined);
        await removeEnding(ctx, session.accountId, session.id).catch(() => undefined);
      }
    }
  }
  if (!written) throw new WalletError('NOT_LOGGED_IN', 'a logout came while this login was on its way: the session it made was ended');
  for (const s of replaced) ctx.keyStore.invalidate(s.publicKeyHex);
  await ctx.keyStore.meta.put(LAST_ACCOUNT, { accountId: session.accountId }).catch(() => undefined);
  committed(ctx, written);
  // Whether sessions were replaced: the caller finishes their ends after the login resolved.
  return replaced.length > 0;
}

/**
 * The Session record for a service answer. `known` supplies what the answer may lack (the account)
 * and what it does not carry (the credential the flow used: the wire reference's AuthSession names
 * no credential, so none is read from the answer). `serverNow` stands in for a missing `createdAt`.
 */
export function sessionFromAnswer(
  answer: AuthSession,
  known: { accountId: string; credentialId: string; credentialType: CredentialType; publicKeyHex: string; legacy?: boolean | undefined },
  serverNow: number,
): Session {
  const credentialType = CREDENTIAL_TYPES.includes(answer.type) ? answer.type : known.credentialType;
  const session: Session = {
    id: answer.id,
    accountId: typeof answer.accountId === 'string' && answer.accountId !== '' ? answer.accountId : known.accountId,
    // The service's AuthSession does not name its credential (wire reference §5): the flow knows it.
    credentialId: known.credentialId,
    credentialType,
    publicKeyHex: known.publicKeyHex,
    expiresAt: answer.expiresAt,
    createdAt: isoOrUndefined(answer.createdAt) ?? new Date(serverNow).toISOString(),
  };
  if (known.legacy === true) session.legacy = true;
  return session;
}

/** What a refresh did: the session now current, and the end of the one it replaced (to run after). */
export interface RefreshResult {
  session: Session;
  retire?: () => Promise<void>;
}

/** What a refresh needs from the manager besides the context. */
export interface RefreshDeps {
  accountId: string;
  plan: KeyPlan | undefined;
  automatic: boolean;
  dueAt: (s: Session) => number;
  /** Runs `fn` in the account's critical section (manager.ts `run`). */
  run: RunInSection;
  /** Reads the account's stored state (the picture follows). */
  observe: (accountId: string) => Promise<Snapshot>;
}

function loggedOutMeanwhile(): WalletError {
  return new WalletError('NOT_LOGGED_IN', 'a logout came while the refresh was on its way: the session it created was ended');
}
function replacedMeanwhile(): WalletError {
  return new WalletError('ABORTED', 'the session was refreshed or ended while this refresh was on its way: the session it created was ended');
}

/**
 * Refreshes the account's current session: a new key, the signed refresh, then a commit in the
 * section that checks what it started from (the same session current, the same logout nonce).
 * Called holding the account's refresh lock (one refresh per account across tabs), NOT inside the
 * section: the prompt and the request run outside it (I4), so a logout or a new tab never waits on
 * the user; a logout cancels the prompt (I2) and, once the refresh is on the wire, waits for its
 * answer by taking the refresh lock. The signature is re-checked after the prompt (same session
 * current, same nonce). A commit that cannot happen undoes the refresh: the new session is ended on
 * the service signed with its own key (pending end until confirmed), its key then dropped; the
 * refresh then fails with why: NOT_LOGGED_IN (a logout), ABORTED (the session was refreshed or
 * ended meanwhile), or the error that stopped it (the plan, storage: still logged in).
 * `automatic`: only if still due (another tab may have refreshed meanwhile).
 */
export async function refreshSession(ctx: OpsContext, deps: RefreshDeps): Promise<RefreshResult> {
  const { accountId, automatic } = deps;
  const snap = await deps.observe(accountId);
  const cur = currentOf(snap.state);
  if (!cur) throw ctx.noSession(accountId);
  if (automatic && ctx.clock.now() < deps.dueAt(cur)) return { session: cur };
  if (snap.logoutPending) throw new WalletError('NOT_LOGGED_IN', 'a logout of this account is in progress');
  const oldSigner = signerFromKey(await deps.run(accountId, (s) => (currentOf(s.state)?.id === cur.id ? keyIn(ctx, s, cur) : Promise.reject(ctx.noSession(accountId)))));
  const guard = ctx.cancellers.track(accountId, snap.logoutNonce);
  try {
    const plan = deps.plan ?? (await ctx.host.newKeyPlan());
    // Re-checked after the prompt, just before the refresh is signed and sent.
    const signer = async (): Promise<Signer> => {
      const now = await deps.observe(accountId);
      if (now.logoutNonce !== snap.logoutNonce || now.logoutPending) throw new WalletError('NOT_LOGGED_IN', 'a logout cancelled this refresh');
      if (currentOf(now.state)?.id !== cur.id) throw new WalletError('ABORTED', 'the session was refreshed or ended while this refresh waited');
      return oldSigner;
    };
    let answer: AuthSession;
    try {
      answer = await ctx.service.refresh(cur.id, plan.clientPublicKey, signer, { automatic, signingSignal: guard.signal });
    } catch (error) {
      if (guard.signal.aborted) throw guard.signal.reason;
      if (isWalletError(error, 'NOT_LOGGED_IN') || isWalletError(error, 'ABORTED')) throw error;
      const e = await deps.run(accountId, (s) => refused(ctx, s, cur, error));
      if (isWalletError(e)) ctx.refreshFailed(cur, e);
      throw e;
    }
    let key: SessionKey | undefined;
    let written: AccountState | undefined;
    let next: Session | undefined;
    // Why the commit did not happen (thrown once undone): a logout (NOT_LOGGED_IN), the session
    // refreshed or ended meanwhile (ABORTED), or the error that stopped it (the plan, storage): the
    // account is still logged in then, and an automatic refresh is tried again (refresher.ts).
    let lost: unknown;
    try {
      key = await plan.finish(answer);
      ctx.clock.observeServerTime(Date.parse(answer.createdAt));
      next = sessionFromAnswer(answer, { ...cur, publicKeyHex: key.publicKeyHex, legacy: plan.legacy }, ctx.clock.now());
      await ctx.keyStore.put({ publicKeyHex: key.publicKeyHex, privateKey: key.privateKey, publicKey: key.publicKey, purpose: 'session', accountId, sessionId: next.id });
      const made = next;
      written = await deps.run(accountId, async (s) => {
        if (s.logoutNonce !== snap.logoutNonce) lost = loggedOutMeanwhile();
        else if (currentOf(s.state)?.id !== cur.id) lost = replacedMeanwhile();
        if (lost) return undefined;
        const sessions = [...s.state.sessions.filter((x) => x.id !== cur.id), made];
        // The replaced session becomes a pending end (its key kept for that alone) in the same step.
        await addEnding(ctx, accountId, [{ id: cur.id, publicKeyHex: cur.publicKeyHex, expiresAt: cur.expiresAt }]);
        // Refused or failed (storage), the old session stays stored and current: not to be ended.
        const w = await commitState(ctx.keyStore.meta, s, { sessions, current: made.id, change: 'refresh' }).catch(async (error: unknown) => {
          await removeEnding(ctx, accountId, cur.id).catch(() => undefined);
          throw error;
        });
        if (w) {
          ctx.keyStore.invalidate(cur.publicKeyHex);
          committed(ctx, w);
        } else await removeEnding(ctx, accountId, cur.id);
        return w;
      });
    } catch (error) {
      lost = error;
    } finally {
      if (!written) {
        // Undo: the session this refresh created must not outlive it. Signed with its own key when
        // there is one (the old one may be ended already), else the old one; never a prompt.
        const own = key;
        if (!own) await endWith(ctx, accountId, answer.id, oldSigner);
        else if (await endWith(ctx, accountId, answer.id, signerFromKey(own))) await ctx.keyStore.delete(own.publicKeyHex).catch(() => undefined);
        else await deps.run(accountId, () => addEnding(ctx, accountId, [{ id: answer.id, publicKeyHex: own.publicKeyHex, expiresAt: answer.expiresAt }])).catch(() => undefined);
      }
    }
    if (!written) throw lost ?? loggedOutMeanwhile();
    // One slot per browser: the replaced session is ended on the service after the new one is in.
    return { session: next!, retire: () => deps.run(accountId, () => finishEnding(ctx, accountId)) };
  } finally {
    guard.done();
  }
}

/**
 * A login's verify and commit (`fn`) holding the account's login lock, shared (`loginStarts` of
 * ending.ts, which loads this module first: I5). Bound to `started`, the logout nonce read when the
 * login started: a logout requested since then (`lost`: called in this tab after it started; or the
 * nonce moved) has won, and nothing is sent (an OTP code is not used up, no session is made).
 */
export async function login<T>(
  ctx: OpsContext,
  sections: CriticalSections,
  accountId: string,
  started: Promise<Snapshot>,
  lost: () => boolean,
  fn: (ticket: LoginTicket) => Promise<T>,
): Promise<T> {
  const { logoutNonce } = await started;
  return sections.logins(accountId, 'shared', async () => {
    const guard = ctx.cancellers.track(accountId, logoutNonce);
    ctx.cancellers.check(accountId, (await readSnapshot(ctx.keyStore.meta, accountId)).logoutNonce);
    try {
      if (lost()) throw new WalletError('NOT_LOGGED_IN', 'a logout called after this login started cancelled it');
      if (guard.signal.aborted) throw guard.signal.reason;
      return await fn({ accountId, logoutNonce, signal: guard.signal });
    } finally {
      guard.done();
    }
  });
}

/**
 * A login's commit (`manager.establish`): builds the Session for the service's answer, observes its
 * server time and adopts it. Loaded by `loginStarts` before the verify request is sent (I5).
 */
export async function establish(
  ctx: OpsContext,
  answer: unknown,
  known: Parameters<ManagedSessions['establish']>[1],
  deps: AdoptDeps,
): Promise<Session> {
  const parsed = parseAuthSession(answer);
  try {
    ctx.clock.observeServerTime(Date.parse(parsed.createdAt));
    const { ticket, ...rest } = known;
    const session = sessionFromAnswer(parsed, { ...rest, publicKeyHex: known.key.publicKeyHex }, ctx.clock.now());
    await adopt(ctx, session, known.key, ticket?.accountId === session.accountId ? ticket : undefined, deps);
    return session;
  } catch (error) {
    // I5: the service made a session this login cannot keep: end it with its own key (a lost
    // logout race did so already), no prompt; should the service be unreachable, leave its key
    // as a pending end.
    if (!isWalletError(error, 'NOT_LOGGED_IN')) {
      const ended = await endWith(ctx, known.accountId, parsed.id, signerFromKey(known.key));
      if (!ended) await deps.run(known.accountId, () => addEnding(ctx, known.accountId, [{ id: parsed.id, publicKeyHex: known.key.publicKeyHex, expiresAt: parsed.expiresAt }])).catch(() => undefined);
    }
    throw error;
  }
}

/** What `adopt` needs from the manager besides the context. */
export interface AdoptDeps {
  ensureLoaded: () => Promise<void>;
  run: RefreshDeps['run'];
  /** Told after the commit: the account is the last used, its pending ends are finished (`replaced`: the login added some). */
  adopted: (accountId: string, replaced: boolean) => void;
}

/** `manager.adopt` (and a login's commit): checks the session and its key, then `addSession` in the account's section. */
export async function adopt(ctx: OpsContext, session: Session, key: SessionKey, ticket: LoginTicket | undefined, deps: AdoptDeps): Promise<void> {
  const parsed = parseStoredSession(session);
  if (!parsed) throw invalidArgument('session', 'a Session');
  if (typeof key !== 'object' || key === null || key.publicKeyHex !== parsed.publicKeyHex) {
    throw invalidArgument('key', 'the session key whose publicKeyHex is session.publicKeyHex');
  }
  await deps.ensureLoaded();
  const replaced = await deps.run(parsed.accountId, (snap) => addSession(ctx, snap, parsed, key, ticket));
  deps.adopted(parsed.accountId, replaced);
}

