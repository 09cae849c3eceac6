/**
 * embedded-wallet-signer/legacy: the deprecated sealed-session-key flow (wire reference §6).
 * A separate entry so that apps on the modern flow never download @noble/curves or bs58check.
 */
import bs58check from 'bs58check';
import { p256 } from '@noble/curves/nist.js';
import { WalletError, invalidArgument } from './errors.js';
import { hexToBytes } from './crypto/encoding.js';
import { concatBytes } from './crypto/bytes.js';
import { hpkeOpen } from './crypto/hpke.js';
import { decompressPublicKey } from './crypto/verify.js';
import { sessionKeyFromPair, type SessionKey } from './crypto/keypair.js';
import { ECDSA_P256, buf, subtle } from './crypto/webcrypto.js';
import { generateRecipientKey } from './crypto/keypair.js';
import { oauthNonce } from './crypto/oauth.js';
import { verifyOAuth, type OAuthLogin } from './flows/oauth.js';
import { preparePasskeyLogin, type PasskeyLogin } from './flows/passkey.js';
import { walletContext } from './session/context.js';
import type { KeyPlan, Session } from './session/types.js';
import type { Wallet } from './wallet.js';

const ENC_LENGTH = 33;
const TAG_LENGTH = 16;
const SCALAR_LENGTH = 32;

/**
 * Opens `encryptedSessionSigningKey`: base58check(compressed enc (33) ‖ ciphertext ‖ tag (16)).
 * The enc is decompressed here (Firefox and Safari cannot import compressed points), the HPKE
 * plaintext must be a 32-byte P-256 scalar, which is imported as a non-extractable ECDSA signing key
 * and zeroed. Errors: MALFORMED_BUNDLE (encoding, checksum, lengths, enc not a point, plaintext not a
 * valid scalar), DECRYPTION_FAILED (wrong recipient key or tampered ciphertext).
 */
export async function openSealedSessionKey(args: { bundle: string; recipientKey: CryptoKeyPair }): Promise<SessionKey> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  const { bundle, recipientKey } = args;
  if (typeof bundle !== 'string') throw new WalletError('MALFORMED_BUNDLE', 'sealed session key must be a string');
  let decoded: Uint8Array;
  try {
    decoded = bs58check.decode(bundle.trim());
  } catch (cause) {
    throw new WalletError('MALFORMED_BUNDLE', 'sealed session key is not valid base58check', { cause });
  }
  if (decoded.length < ENC_LENGTH + TAG_LENGTH + 1) {
    throw new WalletError('MALFORMED_BUNDLE', `sealed session key is too short (${decoded.length} bytes)`);
  }
  let enc: Uint8Array;
  try {
    enc = decompressPublicKey(decoded.subarray(0, ENC_LENGTH));
  } catch (cause) {
    throw new WalletError('MALFORMED_BUNDLE', 'sealed session key: enc is not a compressed P-256 point', { cause });
  }
  const scalar = await hpkeOpen({ recipientKey, enc, ciphertext: decoded.subarray(ENC_LENGTH) });
  let pkcs8: Uint8Array | undefined;
  try {
    if (scalar.length !== SCALAR_LENGTH || !p256.utils.isValidSecretKey(scalar)) {
      throw new WalletError('MALFORMED_BUNDLE', 'sealed session key does not hold a P-256 private scalar');
    }
    const publicPoint = p256.getPublicKey(scalar, false);
    pkcs8 = pkcs8WithPublicKey(scalar, publicPoint);
    const api = subtle();
    const privateKey = await api.importKey('pkcs8', buf(pkcs8), ECDSA_P256, false, ['sign']);
    const publicKey = await api.importKey('raw', buf(publicPoint), ECDSA_P256, true, ['verify']);
    return await sessionKeyFromPair({ privateKey, publicKey });
  } finally {
    scalar.fill(0);
    pkcs8?.fill(0);
  }
}

/**
 * PKCS#8 PrivateKeyInfo for P-256 carrying the optional public key (RFC 5915 ECPrivateKey with [1]
 * publicKey): some browsers refuse EC PKCS#8 without it, and carrying it avoids a recomputation.
 */
function pkcs8WithPublicKey(scalar: Uint8Array, publicPoint: Uint8Array): Uint8Array {
  return concatBytes(
    // SEQUENCE(135) { INTEGER 0, SEQUENCE { ecPublicKey, prime256v1 }, OCTET STRING(109) {
    //   SEQUENCE(107) { INTEGER 1, OCTET STRING(32) d, [1](68) BIT STRING(66) 00 point } } }
    hexToBytes('308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420'),
    scalar,
    hexToBytes('a144034200'),
    publicPoint,
  );
}

export type { SessionKey } from './crypto/keypair.js';

// ---- the legacy login flows: uncompressed clientPublicKey → sealed session key → a normal session ----

/**
 * A key plan for the deprecated flow (wire reference §6): a fresh ECDH recipient key whose
 * **uncompressed** public key is sent as `clientPublicKey`; the service answers with the session key
 * sealed to it, which is opened into a non-extractable signing key. The session manager then keeps
 * the session like any other (flagged `legacy: true`).
 */
export async function createLegacyKeyPlan(): Promise<KeyPlan> {
  const recipient = await generateRecipientKey();
  return {
    clientPublicKey: recipient.publicKeyUncompressedHex,
    legacy: true,
    async finish(answer) {
      const bundle = answer.encryptedSessionSigningKey;
      if (typeof bundle !== 'string' || bundle === '') {
        throw new WalletError('BAD_RESPONSE', 'the legacy flow expects encryptedSessionSigningKey in the session answer');
      }
      return openSealedSessionKey({ bundle, recipientKey: { privateKey: recipient.privateKey, publicKey: recipient.publicKey } });
    },
  };
}

/**
 * OAuth with the legacy key: the nonce is SHA-256 of the uncompressed `clientPublicKey`.
 * Decision: the recipient key lives in memory only (popup-style IdP flows); the redirect-safe
 * `completeOAuth` of the main entry is for the client-held-key flow.
 */
export async function prepareLegacyOAuth(wallet: Wallet, args: { accountId: string }): Promise<OAuthLogin> {
  const ctx = walletContext(wallet);
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  const { accountId } = args;
  const plan = await createLegacyKeyPlan();
  const nonce = await oauthNonce(plan.clientPublicKey);
  return {
    nonce,
    clientPublicKey: plan.clientPublicKey,
    complete: (oidcToken, credentialId) => verifyOAuth(ctx, { accountId, oidcToken, plan, ...(credentialId !== undefined ? { credentialId } : {}) }),
  };
}

/** Passkey login with the legacy key: the challenge binds the uncompressed `clientPublicKey`. */
export function prepareLegacyPasskeyLogin(wallet: Wallet, args: { accountId: string; credentialId?: string }): Promise<PasskeyLogin> {
  const ctx = walletContext(wallet);
  return createLegacyKeyPlan().then((plan) => preparePasskeyLogin(ctx, args, plan));
}

/** Refreshes the account's current session into a new legacy (sealed-key) session. */
export async function refreshLegacySession(wallet: Wallet, accountId?: string): Promise<Session> {
  const ctx = walletContext(wallet);
  return ctx.sessions.refresh(accountId, await createLegacyKeyPlan());
}

export type { OAuthLogin } from './flows/oauth.js';
export type { PasskeyLogin } from './flows/passkey.js';
export type { KeyPlan, Session } from './session/types.js';
