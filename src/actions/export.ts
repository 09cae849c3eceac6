/**
 * Wallet export (wire reference §8.6): a fresh non-extractable ECDH recipient key, its uncompressed
 * public key sent in a signed `POST /internal-accounts/{id}/export`, the envelope's signature checked
 * against the wallet's trusted keys (unless the app configured 'skip-verification'), the HPKE
 * ciphertext opened to the BIP-39 mnemonic.
 *
 * Decision: the recipient key lives in this call's memory only, never in the key store. It is needed
 * for one envelope during one call, so nothing is gained by writing it to IndexedDB, and a copy there
 * would outlive a tab that died mid-export (and need a sweeper to find it later). When the call
 * returns, the key is unreachable and goes with the rest of the call's garbage.
 *
 * The mnemonic is returned to the caller once: it is never logged, stored, put in an error message
 * or kept by the wallet.
 */
import { openExportBundle } from '../crypto/enclave.js';
import { generateRecipientKey, type SessionKey } from '../crypto/index.js';
import { WalletError } from '../errors.js';
import type { WalletContext } from '../session/context.js';
import { isRecord } from '../types.js';
import { accountOf, seg } from './args.js';
import { signedNow } from './signing.js';

/**
 * Exports the wallet of `accountId` (default: the current session's account) and resolves to its
 * mnemonic. Two requests. Errors: NOT_LOGGED_IN / SESSION_EXPIRED / KEY_EVICTED (before any request),
 * SIGNING_REFUSED, BUNDLE_SIGNER_UNTRUSTED / BUNDLE_SIGNATURE_INVALID (envelope not from a trusted
 * enclave), MALFORMED_BUNDLE, DECRYPTION_FAILED, and the service's codes.
 */
export async function exportWallet(ctx: WalletContext, accountId?: string): Promise<string> {
  const account = await accountOf(ctx, accountId);
  return exportWalletTo(ctx, account, await generateRecipientKey());
}

/**
 * The export of `account` encrypted to `recipient` (made by {@link generateRecipientKey} for this one
 * export): the signed request, the envelope checked against the trusted keys and opened. The
 * signer frame (src/signer/frame/export.ts) calls it with a key it made, so that its approval
 * screen can name the key the export is encrypted to.
 */
export async function exportWalletTo(ctx: WalletContext, account: string, recipient: SessionKey): Promise<string> {
  const { answer } = await signedNow<unknown>(ctx, { accountId: account }, {
    method: 'POST',
    path: exportPath(account),
    body: { clientPublicKey: recipient.publicKeyUncompressedHex },
    purpose: 'export-wallet',
  });
  if (!isRecord(answer) || typeof answer.encryptedWalletCredentials !== 'string' || answer.encryptedWalletCredentials === '') {
    throw new WalletError('BAD_RESPONSE', 'expected {id, encryptedWalletCredentials} from the export');
  }
  const opened = await openExportBundle({
    bundle: answer.encryptedWalletCredentials,
    recipientKey: { privateKey: recipient.privateKey, publicKey: recipient.publicKey },
    trustedKeys: ctx.trustedKeys,
  });
  if (opened.mnemonic.trim() === '') throw new WalletError('MALFORMED_BUNDLE', 'the export bundle opened to an empty mnemonic');
  return opened.mnemonic;
}

/** The export's path for `account`. */
export const exportPath = (account: string): string => `/internal-accounts/${seg(account)}/export`;
