/** The client-held-key plan: a fresh non-extractable key whose compressed public key is sent. */
import { generateSessionKey, type SessionKey } from '../crypto/index.js';
import type { AuthSession } from '../types.js';

/** What a flow hands the manager to turn a service answer into a stored key (modern or legacy). */
export interface KeyPlan {
  /** The `clientPublicKey` to send: compressed (client-held key) or uncompressed (legacy). */
  readonly clientPublicKey: string;
  /** The session key for the service's answer (the key itself, or the sealed one opened). */
  finish(answer: AuthSession): Promise<SessionKey>;
  /** Whether the resulting session is a legacy one. */
  readonly legacy: boolean;
}

/**
 * A new session key and the plan that returns it. Decision: should the service answer with an
 * `encryptedSessionSigningKey` anyway, it is ignored: with a compressed `clientPublicKey` the
 * session key is ours by definition (wire reference §2).
 */
export async function createKeyPlan(): Promise<KeyPlan & { key: SessionKey }> {
  const key = await generateSessionKey();
  return {
    key,
    clientPublicKey: key.publicKeyHex,
    legacy: false,
    finish: async () => key,
  };
}
