/**
 * Wallet export (wire reference §8.6): a fresh non-extractable ECDH recipient key, its uncompressed
 * public key sent in a signed `POST /internal-accounts/{id}/export`, the envelope's signature checked
 * against the wallet's trusted keys (unless the app configured 'skip-verification'), the HPKE
 * ciphertext opened to the BIP-39 mnemonic, and the recipient key deleted whatever happened.
 *
 * The mnemonic is returned to the caller once: it is never logged, stored, put in an error message
 * or kept by the wallet.
 */
import { bytesToHex, decompressPublicKey, hexToBytes, openExportBundle } from '../crypto/index.js';
import { WalletError } from '../errors.js';
import type { WalletContext } from '../session/context.js';
import { isRecord } from '../types.js';
import { accountOf, seg } from './args.js';
import { signedNow } from './signing.js';

/**
 * Decision: a recipient key lives only for one export call (two requests, each under the transport's
 * timeout, challenges of about five minutes); one older than this was left by an export that never
 * reached its cleanup (tab closed mid-call) and is removed by the next export.
 */
const STALE_RECIPIENT_MS = 10 * 60 * 1000;

async function sweepStaleRecipients(ctx: WalletContext): Promise<void> {
  const cutoff = Date.now() - STALE_RECIPIENT_MS;
  for (const key of await ctx.keyStore.list({ purpose: 'export-recipient' })) {
    if (key.createdAt < cutoff) await ctx.keyStore.delete(key.publicKeyHex);
  }
}

/**
 * Exports the wallet of `accountId` (default: the current session's account) and resolves to its
 * mnemonic. Two requests. Errors: NOT_LOGGED_IN / SESSION_EXPIRED / KEY_EVICTED (before any request),
 * SIGNING_REFUSED, BUNDLE_SIGNER_UNTRUSTED / BUNDLE_SIGNATURE_INVALID (envelope not from a trusted
 * enclave), MALFORMED_BUNDLE, DECRYPTION_FAILED, and the service's codes.
 */
export async function exportWallet(ctx: WalletContext, accountId?: string): Promise<string> {
  const account = await accountOf(ctx, accountId);
  await sweepStaleRecipients(ctx).catch(() => undefined);
  const recipient = await ctx.keyStore.generate({ purpose: 'export-recipient', accountId: account });
  try {
    const clientPublicKey = bytesToHex(decompressPublicKey(hexToBytes(recipient.publicKeyHex)));
    const { answer } = await signedNow<unknown>(ctx, { accountId: account }, {
      method: 'POST',
      path: `/internal-accounts/${seg(account)}/export`,
      body: { clientPublicKey },
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
  } finally {
    // A failed delete leaves a key that can open nothing but this one envelope; the next export sweeps it.
    await ctx.keyStore.delete(recipient.publicKeyHex).catch(() => undefined);
  }
}
