/**
 * The `Service-Wallet-Signature` stamp (wire reference §3):
 * base64url_nopad(utf8(JSON.stringify({ publicKey, scheme, signature }))), signature = DER hex.
 */
import { WalletError, invalidArgument } from '../errors.js';
import { base64urlDecode, bytesToHex, hexToBytes, utf8Decode, utf8Encode } from './encoding.js';
import { derFromP1363, p1363FromDer } from './der.js';
import { compressPublicKey, decompressPublicKey } from './p256.js';
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

/** The three fields of a stamp, as {@link parseStamp} returns them (hex as sent). */
export interface ParsedStamp {
  /** The signer's compressed P-256 public key, hex. */
  publicKey: string;
  /** Always {@link SIGNATURE_SCHEME}. */
  scheme: string;
  /** The DER ECDSA signature, hex. */
  signature: string;
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

function malformedStamp(why: string, cause?: unknown): WalletError {
  return new WalletError('SIGNATURE_MALFORMED', `stamp: ${why}`, cause === undefined ? {} : { cause });
}

/**
 * Strict parse of a stamp header value: unpadded base64url of UTF-8 JSON that is an object with
 * exactly the string fields publicKey (compressed P-256 hex, on the curve), scheme (= SIGNATURE_SCHEME)
 * and signature (strict DER hex). Anything else → SIGNATURE_MALFORMED. Hex may be of either case and
 * is returned as sent. Decision: unknown extra fields are rejected — our stamps never carry any.
 */
export function parseStamp(headerValue: string): ParsedStamp {
  if (typeof headerValue !== 'string' || headerValue.length === 0) throw malformedStamp('empty or not a string');
  let value: unknown;
  try {
    value = JSON.parse(utf8Decode(base64urlDecode(headerValue, 'stamp')));
  } catch (cause) {
    throw malformedStamp('not base64url-encoded UTF-8 JSON', cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformedStamp('not a JSON object');
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length !== 3) throw malformedStamp('expected exactly publicKey, scheme and signature');
  const { publicKey, scheme, signature } = fields;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') {
    throw malformedStamp('publicKey, scheme and signature must be strings');
  }
  if (scheme !== SIGNATURE_SCHEME) throw malformedStamp(`unsupported scheme`);
  if (!/^0[23][0-9a-fA-F]{64}$/.test(publicKey)) throw malformedStamp('publicKey must be compressed P-256 hex');
  try {
    decompressPublicKey(hexToBytes(publicKey));
    p1363FromDer(hexToBytes(signature, 'signature'));
  } catch (cause) {
    throw malformedStamp(cause instanceof WalletError ? cause.message : 'bad publicKey or signature', cause);
  }
  return { publicKey, scheme, signature };
}
