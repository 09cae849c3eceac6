/**
 * A raw 32-byte P-256 scalar → a WebCrypto ECDH key pair for HPKE: for tests and the benchmarks only,
 * which hold the vectors' private scalars. The library never takes a private scalar for ECDH, so this
 * is not in the browser entry.
 *
 * No extractable step: the public point is computed with @noble/curves and carried inside the PKCS#8
 * (RFC 5915 ECPrivateKey with its optional publicKey), so the private key is imported once,
 * non-extractable. The PKCS#8 copy of the scalar is zeroed. Not a scalar in [1, n−1] → INVALID_ARGUMENT.
 */
import { p256 } from '@noble/curves/nist.js';
import { WalletError, invalidArgument } from '../../src/errors.js';
import { concatBytes, hexToBytes } from '../../src/crypto/index.js';

const ECDH_P256 = { name: 'ECDH', namedCurve: 'P-256' } as const;

export async function importHpkeRecipientKey(privateKeyBytes: Uint8Array): Promise<CryptoKeyPair> {
  if (!(privateKeyBytes instanceof Uint8Array) || privateKeyBytes.length !== 32) {
    throw invalidArgument('privateKeyBytes', 'a 32-byte P-256 private scalar');
  }
  if (!p256.utils.isValidSecretKey(privateKeyBytes)) throw invalidArgument('privateKeyBytes', 'a P-256 private scalar in [1, n−1]');
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new WalletError('CRYPTO_UNAVAILABLE');
  const point = p256.getPublicKey(privateKeyBytes, false);
  // SEQUENCE(135) { INTEGER 0, SEQUENCE { ecPublicKey, prime256v1 }, OCTET STRING(109) {
  //   SEQUENCE(107) { INTEGER 1, OCTET STRING(32) d, [1](68) BIT STRING(66) 00 point } } }
  const pkcs8 = concatBytes(
    hexToBytes('308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420'),
    privateKeyBytes,
    hexToBytes('a144034200'),
    point,
  );
  try {
    const privateKey = await subtle.importKey('pkcs8', pkcs8, ECDH_P256, false, ['deriveBits']);
    const publicKey = await subtle.importKey('raw', new Uint8Array(point), ECDH_P256, true, []);
    return { privateKey, publicKey };
  } finally {
    pkcs8.fill(0);
  }
}
