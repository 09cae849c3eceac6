/** The client-held-key plan: a fresh non-extractable key whose compressed public key is sent. */
import { generateSessionKey, type SessionKey } from '../crypto/index.js';
import type { KeyPlan } from './types.js';

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
