/** The OIDC nonce that binds an OAuth login to a session key (wire reference §5.2). */
import { invalidArgument } from '../errors.js';
import { bytesToHex, utf8Encode } from './encoding.js';
import { buf, subtle } from './webcrypto.js';

/**
 * Lowercase hex SHA-256 of the UTF-8 bytes of the exact `clientPublicKeyHex` string (not re-cased,
 * not decoded). The string must look like a SEC1 P-256 public key in hex (66 or 130 characters).
 */
export async function oauthNonce(clientPublicKeyHex: string): Promise<string> {
  if (typeof clientPublicKeyHex !== 'string' || !/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/.test(clientPublicKeyHex)) {
    throw invalidArgument('clientPublicKeyHex', 'a P-256 public key in hex');
  }
  const digest = await subtle().digest('SHA-256', buf(utf8Encode(clientPublicKeyHex)));
  return bytesToHex(new Uint8Array(digest));
}
