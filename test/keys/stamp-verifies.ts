// Shared by the key-store tests in Node and in Chromium (browser-safe: src/crypto only).
import { hexToBytes, parseStamp, stamp, utf8Encode, verifySignature } from '../../src/crypto/index.js';

/** Whether a stamp made by `signer` over `payload` verifies against the public key it names. */
export async function stampVerifies(signer: Parameters<typeof stamp>[1], payload: string): Promise<boolean> {
  const parsed = parseStamp(await stamp(payload, signer));
  return verifySignature(parsed.publicKey, hexToBytes(parsed.signature), utf8Encode(payload));
}
