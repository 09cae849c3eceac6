/**
 * The `Service-Wallet-Signature` stamp (wire reference §3):
 * base64url_nopad(utf8(JSON.stringify({ publicKey, scheme, signature }))), signature = DER hex.
 */
import { WalletError, invalidArgument } from '../errors.js';
import { bytesToHex, hexToBytes, utf8Encode } from './encoding.js';
import { compressPublicKey, derFromP1363, p1363FromDer } from './p256.js';
import type { SessionKey } from './keypair.js';
import { ECDSA_SHA256, buf, isKey, subtle } from './webcrypto.js';

/** The `scheme` of every stamp (wire reference §3). */
export const SIGNATURE_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';

/** Anything that can sign bytes: returns a DER ECDSA P-256/SHA-256 signature. */
export interface Signer {
  /** The signing key's public key as hex (compressed preferred; an uncompressed one is compressed for the stamp). */
  readonly publicKeyHex: string;
  /** Signs `data` (ECDSA P-256 over SHA-256 of it) and resolves to the strict minimal DER signature. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** What {@link stamp} and {@link signerFromKey} sign with when not given a {@link Signer}: a {@link SessionKey}'s private key and public key hex. */
export type KeyLike = Pick<SessionKey, 'privateKey' | 'publicKeyHex'>;

/** A Signer over a WebCrypto ECDSA P-256 private key: WebCrypto's r‖s is converted to minimal DER. */
export function signerFromKey(key: KeyLike): Signer {
  if (typeof key !== 'object' || key === null) throw invalidArgument('key', 'a session key');
  const { privateKey, publicKeyHex } = key;
  if (!isKey(privateKey, 'private', 'ECDSA') || !privateKey.usages.includes('sign')) {
    throw invalidArgument('key.privateKey', "an ECDSA P-256 private CryptoKey with the 'sign' usage");
  }
  if (typeof publicKeyHex !== 'string') throw invalidArgument('key.publicKeyHex', 'a hex string');
  return {
    publicKeyHex,
    sign: async (data) => derFromP1363(new Uint8Array(await subtle().sign(ECDSA_SHA256, privateKey, buf(data)))),
  };
}

function isSigner(value: unknown): value is Signer {
  return typeof value === 'object' && value !== null && typeof (value as { sign?: unknown }).sign === 'function';
}

/** Lowercase compressed hex for the stamp (an uncompressed key is compressed). */
function stampPublicKey(hex: string): string {
  if (typeof hex !== 'string') throw invalidArgument('signer.publicKeyHex', 'a hex string');
  if (/^0[23][0-9a-fA-F]{64}$/.test(hex)) return hex.toLowerCase();
  try {
    return bytesToHex(compressPublicKey(hexToBytes(hex)));
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'signer.publicKeyHex must be a P-256 public key in hex', { cause });
  }
}

/**
 * Signs the exact UTF-8 bytes of `payloadToSign` (never re-parsed or trimmed) and returns the header
 * value. Key order is publicKey, scheme, signature. Never throws: every failure is a rejection.
 */
export async function stamp(payloadToSign: string, signer: Signer | KeyLike): Promise<string> {
  if (typeof payloadToSign !== 'string') throw invalidArgument('payloadToSign', 'a string');
  const s = isSigner(signer) ? signer : signerFromKey(signer);
  const publicKey = stampPublicKey(s.publicKeyHex);
  const der = await s.sign(utf8Encode(payloadToSign));
  p1363FromDer(der); // strict DER only: a custom Signer cannot put other bytes on the wire
  // The JSON is ASCII (hex and a constant), so its UTF-8 is its Latin-1 and btoa encodes it as is.
  const json = JSON.stringify({ publicKey, scheme: SIGNATURE_SCHEME, signature: bytesToHex(der) });
  return btoa(json).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
