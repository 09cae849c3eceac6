/** The crypto core: pure functions over bytes and WebCrypto keys. No I/O, nothing at import time. */
export { base64urlDecode, base64urlEncode } from './base64url.js';
export { bytesToHex, hexToBytes, utf8Encode } from './encoding.js';
export { concatBytes, utf8Decode } from './bytes.js';
export { compressPublicKey, derFromP1363, p1363FromDer } from './p256.js';
export { generateRecipientKey, generateSessionKey, sessionKeyFromPair } from './keypair.js';
export type { SessionKey } from './keypair.js';
export { SIGNATURE_SCHEME, signerFromKey, stamp } from './stamp.js';
export type { KeyLike, Signer } from './stamp.js';
export { decompressPublicKey, parseStamp, toCompressedPublicKeyHex, toUncompressedPublicKey, verifySignature } from './verify.js';
export type { ParsedStamp } from './verify.js';
export { HPKE_INFO } from './hpke-info.js';
export { parseOtpTargetBundle, parseSignedBundle } from './bundles.js';
export type { SignedBundle, TrustedKeys } from './bundles.js';
export { oauthNonce } from './oauth.js';
// Verifying, sealing and opening enclave bundles, and HPKE, are ./enclave.js, imported directly by
// the code that needs them (the OTP flow, the export action); the public entry exports them as
// loaders of their chunk (src/enclave-bundles.ts), so they are not part of the startup code.
