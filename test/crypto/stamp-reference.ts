/**
 * The general stamp path (JSON.stringify → UTF-8 → base64url, signature as DER hex) that stamp()'s
 * own-key path must match byte for byte. Browser-safe (no Node imports): used by the node and the
 * Chromium stamp tests alike; each adds its own independent verifier.
 */
import { expect } from 'vitest';
import { SIGNATURE_SCHEME, base64urlEncode, bytesToHex, derFromP1363, hexToBytes, p1363FromDer, parseStamp, utf8Encode, type SessionKey } from '../../src/crypto/index.js';

export const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** The stamp as the general path builds it, from the DER the header carries. */
export function referenceHeader(publicKeyHex: string, der: Uint8Array): string {
  return base64urlEncode(utf8Encode(JSON.stringify({ publicKey: publicKeyHex, scheme: SIGNATURE_SCHEME, signature: bytesToHex(der) })));
}

/**
 * Checks one header's bytes: it names `key`, carries a minimal DER signature, and is exactly the
 * reference built from that signature. Returns the parts for the caller's verifier.
 */
export function expectCanonicalStamp(header: string, key: Pick<SessionKey, 'publicKeyHex'>): { publicKey: string; der: Uint8Array<ArrayBuffer> } {
  const { publicKey, signature } = parseStamp(header);
  expect(publicKey).toBe(key.publicKeyHex);
  const der = hexToBytes(signature);
  expect(derFromP1363(p1363FromDer(der))).toEqual(der); // minimal DER
  expect(header).toBe(referenceHeader(key.publicKeyHex, der));
  return { publicKey, der };
}
