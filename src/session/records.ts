/**
 * Session records: as persisted (inside an account's state, see state.ts), and checking the
 * service's `AuthSession` answers (the record built from one, `sessionFromAnswer`, is in changes.ts:
 * only a login's commit and a refresh make one).
 */
import { WalletError } from '../errors.js';
import { CREDENTIAL_TYPES, isRecord, type AuthSession, type CredentialType } from '../types.js';

/** One session this browser holds. Persisted as key-store metadata beside its key. */
export interface Session {
  /** `Session:…` */
  id: string;
  /** `InternalAccount:…` */
  accountId: string;
  /** `AuthMethod:…`: the credential that created the session (kept across refreshes). */
  credentialId: string;
  /** The type of that credential. */
  credentialType: CredentialType;
  /** Compressed hex of the session key in the key store. */
  publicKeyHex: string;
  /** ISO, server time. */
  expiresAt: string;
  /** ISO, server time. */
  createdAt: string;
  /** Made by the deprecated sealed-key flow (`embedded-wallet-signer/legacy`). */
  legacy?: boolean;
}

export function isoOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && Number.isFinite(Date.parse(value)) ? value : undefined;
}

/** A stored value that is a complete Session, else undefined (foreign or damaged records are ignored). */
export function parseStoredSession(value: unknown): Session | undefined {
  if (!isRecord(value)) return undefined;
  const { id, accountId, credentialId, credentialType, publicKeyHex, expiresAt, createdAt, legacy } = value;
  if (typeof id !== 'string' || typeof accountId !== 'string' || typeof credentialId !== 'string') return undefined;
  if (!CREDENTIAL_TYPES.includes(credentialType as CredentialType)) return undefined;
  if (typeof publicKeyHex !== 'string' || !/^0[23][0-9a-f]{64}$/.test(publicKeyHex)) return undefined;
  if (isoOrUndefined(expiresAt) === undefined || isoOrUndefined(createdAt) === undefined) return undefined;
  // A copy of the known fields only (whatever else a foreign writer put there stays behind).
  return { id, accountId, credentialId, credentialType, publicKeyHex, expiresAt, createdAt, ...(legacy === true && { legacy }) } as Session;
}

/** Checks the service's session answer; BAD_RESPONSE when it is not one. */
export function parseAuthSession(value: unknown): AuthSession {
  // Ids are opaque (issue 25): `Session:<uuid>` is the wire reference's example, not a rule the spec makes.
  if (!isRecord(value) || typeof value.id !== 'string' || value.id === '' || isoOrUndefined(value.expiresAt) === undefined) {
    throw new WalletError('BAD_RESPONSE', 'expected an AuthSession {id, expiresAt, …}');
  }
  return value as AuthSession;
}

export function expiresAtMs(session: Session): number {
  return Date.parse(session.expiresAt);
}

/** Lifetime as the server set it; a record whose createdAt is not before expiresAt counts 15 minutes. */
export function lifetimeMs(session: Session): number {
  const span = Date.parse(session.expiresAt) - Date.parse(session.createdAt);
  return span > 0 ? span : 15 * 60 * 1000;
}
