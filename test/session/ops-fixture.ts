// What the fast tests of refusal.ts, signer-pick.ts and load.ts share: real session keys in an
// in-memory key store, stored account states, a scripted service (its answers are the test's
// input, not our code) and the operations context around them. Not a test file.
import { generateSessionKey, type SessionKey } from '../../src/crypto/index.js';
import { WalletError } from '../../src/errors.js';
import { createKeyStore, createMemoryBackend, type KeyStore } from '../../src/keys/index.js';
import { createEmitter } from '../../src/session/emitter.js';
import { createCancellers, type OpsContext } from '../../src/session/operations.js';
import { createServerClock } from '../../src/session/server-clock.js';
import type { SessionService } from '../../src/session/service.js';
import { ACCOUNT_PREFIX, readSnapshot, type AccountState, type Snapshot } from '../../src/session/state.js';
import type { Session, SessionEvents } from '../../src/session/types.js';
import { createView } from '../../src/session/view.js';

export const ACCOUNT = 'InternalAccount:fx';
export const T0 = Date.parse('2030-01-01T00:00:00.000Z');
export const LIFETIME_MS = 15 * 60_000;

export async function makeKeys(n: number): Promise<SessionKey[]> {
  return Promise.all(Array.from({ length: n }, () => generateSessionKey()));
}

export function sessionOf(keys: SessionKey[], i: number, over: Partial<Session> = {}): Session {
  return {
    id: `Session:${i}`,
    accountId: ACCOUNT,
    credentialId: `AuthMethod:${i % 2}`,
    credentialType: 'EMAIL_OTP',
    publicKeyHex: keys[i]!.publicKeyHex,
    createdAt: new Date(T0).toISOString(),
    expiresAt: new Date(T0 + LIFETIME_MS).toISOString(),
    ...over,
  };
}

/** A service whose `list` answers `listed()` (or throws when it returns undefined); counts the asks. */
export function listingService(listed: () => string[] | undefined): SessionService & { asked: number } {
  const svc = {
    asked: 0,
    list: async (accountId: string) => {
      svc.asked++;
      const ids = listed();
      if (ids === undefined) throw new WalletError('NETWORK_ERROR', 'offline');
      return ids.map((id) => ({ id, accountId, type: 'EMAIL_OTP', nickname: 'x', createdAt: '', updatedAt: '', expiresAt: '' }));
    },
    refresh: async () => {
      throw new Error('not here');
    },
    end: async () => true,
  };
  return svc as SessionService & { asked: number };
}

export type Ctx = OpsContext & { events: Array<[string, unknown]>; posted: string[] };

export function contextOf(keyStore: KeyStore, service: SessionService, now: () => number = () => T0): Ctx {
  const events: Array<[string, unknown]> = [];
  const emitter = createEmitter<SessionEvents>();
  for (const name of ['session', 'refreshed', 'expired', 'key-evicted', 'logged-out'] as const) emitter.on(name, (e: unknown) => void events.push([name, e]));
  const posted: string[] = [];
  return {
    keyStore,
    service,
    host: {} as never,
    view: createView(emitter, () => undefined),
    channel: { start: () => undefined, post: (a: string) => void posted.push(a), close: () => undefined } as never,
    clock: createServerClock(now),
    cancellers: createCancellers(),
    refreshFailed: () => undefined,
    noSession: () => new WalletError('NOT_LOGGED_IN', 'fixture: no session'),
    loggingOut: new Set(),
    endRefused: (accountId, sessionId, error) => void events.push(['end-refused', { accountId, sessionId, error }]),
    events,
    posted,
  };
}

export function newKeyStore(): KeyStore {
  return createKeyStore({ backend: createMemoryBackend() });
}

/** Stores the sessions' keys (those in `withKeys`, default all) and the account state. */
export async function storeState(
  keyStore: KeyStore,
  keys: SessionKey[],
  sessions: Session[],
  over: Partial<AccountState> = {},
  withKeys: (s: Session) => boolean = () => true,
): Promise<AccountState> {
  for (const s of sessions) {
    if (!withKeys(s)) continue;
    const k = keys[Number(s.id.split(':')[1])]!;
    await keyStore.put({ publicKeyHex: k.publicKeyHex, privateKey: k.privateKey, publicKey: k.publicKey, purpose: 'session', accountId: s.accountId, sessionId: s.id });
  }
  const state: AccountState = { accountId: ACCOUNT, generation: 1, current: sessions[0]?.id ?? null, sessions, change: 'login', ...over };
  await keyStore.meta.put(ACCOUNT_PREFIX + state.accountId, state);
  return state;
}

/** The manager's `run` without the lock: `fn` on a fresh snapshot (tests drive one operation at a time). */
export function runIn(keyStore: KeyStore, calls: string[] = []) {
  return async <T>(accountId: string, fn: (snap: Snapshot) => Promise<T>): Promise<T> => {
    calls.push(accountId);
    return fn(await readSnapshot(keyStore.meta, accountId));
  };
}

/**
 * A store holding sessions 0 (current) and 1 of the account (`over1` changes session 1; keys stored
 * per `withKeys`), and a context over a service that lists both.
 */
export async function twoSessionsStored(keys: SessionKey[], over1: Partial<Session> = {}, withKeys: (s: Session) => boolean = () => true) {
  const keyStore = newKeyStore();
  const a = sessionOf(keys, 0);
  const b = sessionOf(keys, 1, over1);
  await storeState(keyStore, keys, [a, b], {}, withKeys);
  return { keyStore, a, b, ctx: contextOf(keyStore, listingService(() => [a.id, b.id])) };
}
