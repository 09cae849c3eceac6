// Shared by the Node crypto tests: the known-answer vectors and error-code assertions.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { isWalletError } from '../../src/errors.js';
import { base64urlEncode, hexToBytes, toUncompressedPublicKey } from '../../src/crypto/index.js';

export interface WireVectors {
  stamp: {
    privateKey: string;
    publicKeyCompressed: string;
    publicKeyUncompressed: string;
    payloadToSign: string;
    derSignature: string;
    stampJson: string;
    headerValue: string;
  };
  points: { uncompressed: string; compressed: string }[];
  invalidPoints: { hex: string; why: string }[];
  credentialBundle: {
    bundle: string;
    recipientPrivateKey: string;
    plaintextPrivateKey: string;
    recipientPublicKeyUncompressed: string;
    decodedLength: number;
  };
  otpSeal: {
    ephemeralPrivateKey: string;
    recipientPrivateKey: string;
    recipientPublicKeyUncompressed: string;
    enc: string;
    key: string;
    baseNonce: string;
    plaintext: string;
    ciphertext: string;
    encryptedOtpBundle: string;
  };
  exportBundle: { bundle: string; recipientPrivateKey: string; organizationId: string; mnemonic: string };
  oauthNonce: { clientPublicKey: string; nonce: string };
  derFromP1363: { p1363: string; der: string }[];
}

/** ../shared/vectors/wire-vectors.json relative to the repository root. */
export const vectors: WireVectors = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../shared/vectors/wire-vectors.json', import.meta.url)), 'utf8'),
) as WireVectors;

/** The WalletError code `fn` throws (also from a re-imported module copy); anything else thrown (e.g. a bare TypeError) fails the test. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isWalletError(e)) return e.code;
    throw e;
  }
  return 'NO_ERROR';
}

/** The WalletError code the promise returned by `fn` rejects with (a synchronous throw counts too). */
export async function asyncCodeOf(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (e) {
    if (isWalletError(e)) return e.code;
    throw e;
  }
  return 'NO_ERROR';
}

/** Verifies a DER ECDSA P-256/SHA-256 signature with node:crypto (OpenSSL): an independent verifier. */
export function nodeVerifies(publicKeyHex: string, data: Uint8Array, der: Uint8Array): boolean {
  const raw = toUncompressedPublicKey(publicKeyHex);
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: base64urlEncode(raw.subarray(1, 33)), y: base64urlEncode(raw.subarray(33)) },
    format: 'jwk',
  });
  return nodeVerify('sha256', data, { key, dsaEncoding: 'der' }, der);
}

export const hex = hexToBytes;
