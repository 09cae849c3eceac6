/**
 * Session creation (after any successful verify, and on refresh).
 *
 * - Lifetime {@link SESSION_TTL_MS} (15 minutes, spec §8).
 * - At most {@link MAX_SESSIONS} active sessions per account (spec §8 "typically 1 to 4").
 *   Decided here: creating a 5th session revokes the oldest active one(s) instead of refusing the
 *   login, so a user is never locked out by stale devices; the revoked session's stamps then fail
 *   with `401 WALLET_SIGNATURE_INVALID` and its id answers `404 SESSION_NOT_FOUND`.
 * - A compressed `clientPublicKey` is the session key itself; an uncompressed one selects the
 *   legacy flow: the sandbox makes the key and returns it sealed (`encryptedSessionSigningKey`).
 * - Refresh does not revoke the old session (it stays valid to its own expiry), so a client that
 *   dies mid-refresh keeps a working session.
 * - One key, one session (decided here, the strict side of "choose the session key first"): a key
 *   that already backed a session — active, expired or revoked — or received a wallet export cannot
 *   back a new one (`400 INVALID_INPUT`, constraint `CONFLICT` on the field that carried it). So
 *   revoking a session revokes its key for good, and refresh always moves to a new key.
 */
import { sealNewSessionKey } from '../crypto/sealed-key.js';
import type { ParsedPublicKey } from '../crypto/p256.js';
import type { SandboxState } from '../context.js';
import { invalidField, notFound } from '../errors.js';
import { newId, type AuthMethodRecord, type SessionRecord } from '../store.js';
import { sessionView } from '../views.js';

export const SESSION_TTL_MS = 15 * 60 * 1000;
export const MAX_SESSIONS = 4;

export interface CreatedSession {
  record: SessionRecord;
  /** The `AuthSession` body. */
  view: Record<string, unknown>;
}

/** `400 INVALID_INPUT` on `field` unless the compressed key `publicKey` was never used (see above). */
export function assertFreshKey(state: SandboxState, publicKey: string, field: string): void {
  const use = state.store.spentKeys.get(publicKey);
  if (use !== undefined) {
    throw invalidField(field, 'CONFLICT', use === 'session' ? 'must be a fresh key: this key already backs a session' : 'must be a fresh key: this key received a wallet export');
  }
}

/** {@link assertFreshKey} for a `clientPublicKey`: a compressed one is the session key itself (an uncompressed one only receives a sandbox-made key). */
export function assertFreshClientKey(state: SandboxState, key: ParsedPublicKey, field = 'clientPublicKey'): void {
  if (key.form === 'compressed') assertFreshKey(state, key.compressed, field);
}

export async function createSession(state: SandboxState, method: AuthMethodRecord, clientPublicKey: ParsedPublicKey): Promise<CreatedSession> {
  let publicKey = clientPublicKey.compressed;
  let sealed: string | undefined;
  if (clientPublicKey.form === 'uncompressed') {
    const made = await sealNewSessionKey(clientPublicKey.uncompressedBytes);
    publicKey = made.sessionPublicKey;
    sealed = made.encryptedSessionSigningKey;
  }
  // No await below: eviction and insertion are one atomic step.
  return insertSession(state, method, publicKey, sealed);
}

/** Inserts a session for a known compressed key, evicting the oldest beyond the limit. */
export function insertSession(state: SandboxState, method: AuthMethodRecord, publicKey: string, sealed?: string): CreatedSession {
  if (!state.store.authMethods.has(method.id)) throw notFound('AUTH_METHOD_NOT_FOUND', 'The credential was deleted meanwhile');
  assertFreshKey(state, publicKey, 'clientPublicKey');
  state.store.spentKeys.set(publicKey, 'session');
  const now = state.clock.now();
  const active = state.store.activeSessionsOf(method.accountId, now).sort((a, b) => a.createdAt - b.createdAt);
  for (let i = 0; i <= active.length - MAX_SESSIONS; i += 1) {
    const oldest = active[i];
    if (oldest !== undefined) oldest.revokedAt = now;
  }
  const record: SessionRecord = {
    id: newId('Session'),
    accountId: method.accountId,
    authMethodId: method.id,
    publicKey,
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
    legacy: sealed !== undefined,
  };
  state.store.sessions.set(record.id, record);
  return { record, view: sessionView(state.config.profile, record, method, sealed) };
}

/** Ends every session of a credential (credential deletion). */
export function revokeSessionsOf(state: SandboxState, authMethodId: string): void {
  const now = state.clock.now();
  for (const s of state.store.sessions.values()) if (s.authMethodId === authMethodId && s.revokedAt === undefined) s.revokedAt = now;
}
