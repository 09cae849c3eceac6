/**
 * Enclave bundles, the WebCrypto part: verifying an envelope's signature, sealing the encrypted OTP
 * bundle (wire reference §5.1), opening the wallet export bundle (§8.6), and the HPKE they use.
 * Nothing at startup needs it: the OTP flow and the export action import it (they are loaded on
 * first use), and the public entry's functions load it at their first call (crypto/index.ts).
 */
import { WalletError, invalidArgument } from '../errors.js';
import { dataObject, hexField, parseOtpTargetBundle, parseSignedBundle, pointField, stringField, type SignedBundle, type TrustedKeys } from './bundles.js';
import { bytesToHex, hexToBytes, utf8Encode } from './encoding.js';
import { equalBytes, utf8Decode } from './bytes.js';
import { hpkeOpen, hpkeSeal } from './hpke.js';
import { decompressPublicKey, toUncompressedPublicKey, verifySignature } from './verify.js';

export { hpkeOpen, hpkeSeal };

function normaliseTrusted(trusted: TrustedKeys): Uint8Array[] {
  if (!Array.isArray(trusted)) throw invalidArgument('trustedKeys', "an array of hex public keys or 'skip-verification'");
  return trusted.map((k, i) => {
    try {
      return toUncompressedPublicKey(k as string);
    } catch (cause) {
      throw new WalletError('INVALID_ARGUMENT', `trustedKeys[${i}] is not a P-256 public key in hex`, { cause });
    }
  });
}

/**
 * Verifies `dataSignature` (ECDSA P-256/SHA-256 over the data bytes, DER, high-S allowed) against the
 * trusted keys. With 'skip-verification' nothing is checked. With trusted keys, a bundle without a
 * signature or signer → BUNDLE_SIGNATURE_INVALID, a signer not in the list → BUNDLE_SIGNER_UNTRUSTED,
 * a signature that is malformed or does not verify → BUNDLE_SIGNATURE_INVALID.
 */
export async function verifySignedBundle(b: SignedBundle, trusted: TrustedKeys): Promise<void> {
  if (typeof b !== 'object' || b === null || !(b.data instanceof Uint8Array) || !(b.dataSignature instanceof Uint8Array) || typeof b.enclaveQuorumPublic !== 'string') {
    throw invalidArgument('bundle', 'a SignedBundle from parseSignedBundle');
  }
  if (trusted === 'skip-verification') return;
  const trustedKeys = normaliseTrusted(trusted);
  if (b.dataSignature.length === 0 || b.enclaveQuorumPublic === '') {
    throw new WalletError('BUNDLE_SIGNATURE_INVALID', 'bundle carries no signature (only skip-verification accepts it)');
  }
  const signer = toUncompressedPublicKey(b.enclaveQuorumPublic);
  if (!trustedKeys.some((k) => equalBytes(k, signer))) throw new WalletError('BUNDLE_SIGNER_UNTRUSTED');
  let ok: boolean;
  try {
    ok = await verifySignature(signer, b.dataSignature, b.data);
  } catch (cause) {
    if (cause instanceof WalletError && cause.code === 'SIGNATURE_MALFORMED') {
      throw new WalletError('BUNDLE_SIGNATURE_INVALID', 'bundle signature is not strict DER', { cause });
    }
    throw cause;
  }
  if (!ok) throw new WalletError('BUNDLE_SIGNATURE_INVALID');
}

/**
 * Builds `encryptedOtpBundle`: verifies the target bundle, HPKE-seals
 * JSON.stringify({otp_code, public_key}) to its targetPublic and returns the JSON string
 * {"encappedPublic": hex, "ciphertext": hex}. `sessionPublicKeyHex` must be compressed (the service
 * rejects an uncompressed one). The plaintext bytes are zeroed after sealing, whatever happened.
 * Decision: the OTP code is only required to be a non-empty string —
 * platforms use 4–12 alphanumeric characters, so no format is assumed.
 */
export async function buildEncryptedOtpBundle(args: {
  targetBundle: string;
  otpCode: string;
  sessionPublicKeyHex: string;
  trustedKeys: TrustedKeys;
  ekm?: CryptoKeyPair;
}): Promise<string> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  const { otpCode, sessionPublicKeyHex } = args;
  if (typeof otpCode !== 'string' || otpCode.length === 0) throw invalidArgument('otpCode', 'a non-empty string');
  if (typeof sessionPublicKeyHex !== 'string' || !/^0[23][0-9a-fA-F]{64}$/.test(sessionPublicKeyHex)) {
    throw invalidArgument('sessionPublicKeyHex', 'a compressed P-256 public key in hex (66 characters, 02/03)');
  }
  try {
    decompressPublicKey(hexToBytes(sessionPublicKeyHex));
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'sessionPublicKeyHex is not on the P-256 curve', { cause });
  }
  const target = parseOtpTargetBundle(args.targetBundle);
  await verifySignedBundle(target, args.trustedKeys);
  // The code's bytes are zeroed once sealed (or on failure). The strings (the caller's code, the JSON)
  // are immutable and left to the garbage collector: only bytes we own can be wiped.
  const plaintext = utf8Encode(JSON.stringify({ otp_code: otpCode, public_key: sessionPublicKeyHex.toLowerCase() }));
  try {
    const { enc, ciphertext } = await hpkeSeal({
      recipientPublicKey: target.targetPublic,
      plaintext,
      ...(args.ekm ? { ekm: args.ekm } : {}),
    });
    return JSON.stringify({ encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ciphertext) });
  } finally {
    plaintext.fill(0);
  }
}

/**
 * Opens `encryptedWalletCredentials` from a wallet export: verifies the envelope, reads
 * {encappedPublic, ciphertext, organizationId} from its data and HPKE-opens the BIP-39 mnemonic with
 * the export's recipient key.
 */
export async function openExportBundle(args: {
  bundle: string;
  recipientKey: CryptoKeyPair;
  trustedKeys: TrustedKeys;
}): Promise<{ mnemonic: string; organizationId: string }> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  const envelope = parseSignedBundle(args.bundle);
  const inner = dataObject(envelope, 'exportBundle');
  const enc = pointField(inner, 'encappedPublic', 'exportBundle.data');
  const ciphertext = hexField(inner, 'ciphertext', 'exportBundle.data');
  const organizationId = stringField(inner, 'organizationId', 'exportBundle.data');
  await verifySignedBundle(envelope, args.trustedKeys);
  const plaintext = await hpkeOpen({ recipientKey: args.recipientKey, enc, ciphertext });
  try {
    return { mnemonic: utf8Decode(plaintext, 'mnemonic'), organizationId };
  } finally {
    plaintext.fill(0);
  }
}
