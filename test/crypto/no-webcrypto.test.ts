// The package must import where WebCrypto is missing (SSR, insecure origins) and only fail when called.
import { afterEach, expect, it, vi } from 'vitest';
import { asyncCodeOf, hex, vectors } from './helpers.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

it('imports without crypto and every WebCrypto-backed call fails with CRYPTO_UNAVAILABLE', async () => {
  vi.stubGlobal('crypto', undefined);
  vi.resetModules();
  const lib = await import('../../src/index.js');
  const legacy = await import('../../src/legacy.js');
  // Pure byte functions still work.
  expect(lib.bytesToHex(lib.compressPublicKey(hex(vectors.points[1]!.uncompressed)))).toBe(vectors.points[1]!.compressed);
  const signer = lib.parseSignedBundle(vectors.exportBundle.bundle).enclaveQuorumPublic;
  const calls: (() => Promise<unknown>)[] = [
    () => lib.generateSessionKey(),
    () => lib.generateRecipientKey(),
    () => lib.verifySignature(vectors.stamp.publicKeyCompressed, hex(vectors.stamp.derSignature), new Uint8Array(1)),
    () => lib.hpkeSeal({ recipientPublicKey: hex(vectors.otpSeal.recipientPublicKeyUncompressed), plaintext: new Uint8Array(1) }),
    () => lib.oauthNonce(vectors.oauthNonce.clientPublicKey),
    () => lib.openExportBundle({ bundle: vectors.exportBundle.bundle, recipientKey: {} as CryptoKeyPair, trustedKeys: [signer] }),
  ];
  for (const call of calls) expect(await asyncCodeOf(call)).toBe('CRYPTO_UNAVAILABLE');
  expect(typeof legacy.openSealedSessionKey).toBe('function');
});
