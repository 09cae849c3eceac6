/** The crypto core: pure functions over bytes and WebCrypto keys. No I/O, nothing at import time. */
import { loadOnFirstUse } from '../load-on-first-use.js';
import type * as Enclave from './enclave.js';

export {
  base64urlDecode,
  base64urlEncode,
  bytesToHex,
  concatBytes,
  hexToBytes,
  utf8Decode,
  utf8Encode,
} from './encoding.js';
export { compressPublicKey, decompressPublicKey, toCompressedPublicKeyHex, toUncompressedPublicKey } from './p256.js';
export { derFromP1363, p1363FromDer } from './der.js';
export { generateRecipientKey, generateSessionKey, sessionKeyFromPair, verifySignature } from './keypair.js';
export type { SessionKey } from './keypair.js';
export { SIGNATURE_SCHEME, parseStamp, signerFromKey, stamp } from './stamp.js';
export type { KeyLike, ParsedStamp, Signer } from './stamp.js';
export { HPKE_INFO } from './hpke-info.js';
export { parseOtpTargetBundle, parseSignedBundle } from './bundles.js';
export type { SignedBundle, TrustedKeys } from './bundles.js';
export { oauthNonce } from './oauth.js';

// Verifying, sealing and opening enclave bundles, and HPKE (crypto/enclave.ts): no startup path
// needs them (the OTP flow and the export action, themselves loaded on first use, import
// crypto/enclave.ts directly). Here they are loaded at the first call of one of these, a chunk of
// its own (src/enclave-bundles.ts). Each was async already: same results, same errors; only a failed
// download (offline, a deploy replaced the chunk) is NETWORK_ERROR, and the next call tries again.
// Pure: an app that uses none of them (or a bundle of only some exports) drops the loader, and the chunk.
const enclave = /* @__PURE__ */ loadOnFirstUse(() => import('../enclave-bundles.js'), 'enclave bundle');
export const hpkeSeal: typeof Enclave.hpkeSeal = (args) => enclave((m) => m.hpkeSeal(args));
export const hpkeOpen: typeof Enclave.hpkeOpen = (args) => enclave((m) => m.hpkeOpen(args));
export const verifySignedBundle: typeof Enclave.verifySignedBundle = (bundle, trusted) => enclave((m) => m.verifySignedBundle(bundle, trusted));
export const buildEncryptedOtpBundle: typeof Enclave.buildEncryptedOtpBundle = (args) => enclave((m) => m.buildEncryptedOtpBundle(args));
export const openExportBundle: typeof Enclave.openExportBundle = (args) => enclave((m) => m.openExportBundle(args));
