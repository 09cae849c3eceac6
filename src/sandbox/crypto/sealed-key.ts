/**
 * The legacy sealed session key (wire-reference §6): the sandbox makes a session signing key,
 * HPKE-seals its 32-byte private scalar to the client's uncompressed `clientPublicKey`, and sends
 * `base58check( compressed enc (33) ‖ ciphertext ‖ tag (16) )`. The scalar is zeroed afterwards;
 * the sandbox only keeps the public key (to check the session's stamps).
 */
import bs58check from 'bs58check';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, concat } from './encoding.js';
import { hpkeSeal } from './hpke.js';
import { compressPoint } from './p256.js';

export async function sealNewSessionKey(clientPublicKeyUncompressed: Uint8Array): Promise<{ encryptedSessionSigningKey: string; sessionPublicKey: string }> {
  const scalar = p256.utils.randomSecretKey();
  try {
    const sessionPublicKey = bytesToHex(p256.getPublicKey(scalar, true));
    const { enc, ciphertext } = await hpkeSeal(clientPublicKeyUncompressed, scalar);
    return { encryptedSessionSigningKey: bs58check.encode(concat(compressPoint(enc), ciphertext)), sessionPublicKey };
  } finally {
    scalar.fill(0);
  }
}
