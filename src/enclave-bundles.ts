/**
 * The public entry's enclave-bundle functions (verify, seal, open, HPKE), loaded on first use: the
 * code is crypto/enclave.ts, which an app's bundler makes a chunk of its own, fetched at the first
 * call of one of these. No startup path needs it (the OTP flow and the export action, themselves
 * loaded on first use, import crypto/enclave.ts directly), so an app downloads it only when it calls
 * one. Each was async already: same results, same errors; only a failed download (offline, a deploy
 * replaced the chunk) is NETWORK_ERROR, and the next call tries again. This lives above crypto/,
 * which imports nothing of the other layers (design.md): the library's own code and the tests import
 * the functions themselves from crypto/enclave.ts.
 */
import type { SignedBundle, TrustedKeys } from './crypto/index.js';
import { loadOnFirstUse } from './load-on-first-use.js';

// Pure: an app that uses none of them (or a bundle of only some exports) drops the loader, and the chunk.
const enclave = /* @__PURE__ */ loadOnFirstUse(() => import('./crypto/enclave.js'), 'enclave bundle');
// The signatures are spelt out (not `typeof` the lazy module's) so that the public .d.ts names only
// exported types; the compiler checks that they still match crypto/enclave.ts.

/**
 * HPKE-seals `plaintext` to a P-256 recipient (wire reference §7: DHKEM(P-256, HKDF-SHA256),
 * HKDF-SHA256, AES-256-GCM, info {@link HPKE_INFO}); `ekm` fixes the ephemeral key pair (known-answer
 * tests only). Resolves to `enc` (65 bytes) and the ciphertext with its tag.
 */
export const hpkeSeal: (args: { recipientPublicKey: Uint8Array; plaintext: Uint8Array; ekm?: CryptoKeyPair }) => Promise<{ enc: Uint8Array<ArrayBuffer>; ciphertext: Uint8Array<ArrayBuffer> }> = (args) =>
  enclave((m) => m.hpkeSeal(args));
/** Opens a single-shot HPKE ciphertext with the recipient's ECDH key pair. A wrong key, a tampered enc, ciphertext or tag → DECRYPTION_FAILED. */
export const hpkeOpen: (args: { recipientKey: CryptoKeyPair; enc: Uint8Array; ciphertext: Uint8Array }) => Promise<Uint8Array<ArrayBuffer>> = (args) => enclave((m) => m.hpkeOpen(args));
/**
 * Verifies a parsed bundle's signature against the trusted keys (nothing with 'skip-verification'):
 * BUNDLE_SIGNATURE_INVALID (no signature, or it does not verify), BUNDLE_SIGNER_UNTRUSTED (signed by
 * a key not in the list).
 */
export const verifySignedBundle: (bundle: SignedBundle, trusted: TrustedKeys) => Promise<void> = (bundle, trusted) => enclave((m) => m.verifySignedBundle(bundle, trusted));
/**
 * The `encryptedOtpBundle` of an OTP login: verifies the target bundle, HPKE-seals
 * `{otp_code, public_key}` to its key and resolves to the JSON string `{"encappedPublic","ciphertext"}`.
 * `sessionPublicKeyHex` must be compressed.
 */
export const buildEncryptedOtpBundle: (args: { targetBundle: string; otpCode: string; sessionPublicKeyHex: string; trustedKeys: TrustedKeys; ekm?: CryptoKeyPair }) => Promise<string> = (args) =>
  enclave((m) => m.buildEncryptedOtpBundle(args));
/** Opens a wallet export's `encryptedWalletCredentials`: verifies the envelope and HPKE-opens the mnemonic with the export's recipient key. */
export const openExportBundle: (args: { bundle: string; recipientKey: CryptoKeyPair; trustedKeys: TrustedKeys }) => Promise<{ mnemonic: string; organizationId: string }> = (args) =>
  enclave((m) => m.openExportBundle(args));
