/**
 * OAuth logins in the signer frame (THREAT-MODEL.md P3): the frame makes the session key, so the
 * IdP's nonce (`hex(SHA-256(utf8(clientPublicKey)))`, wire reference §5.2) binds the frame's key;
 * the parent gets the nonce and the public key to send the user to the IdP, and hands the ID token
 * back. The service accepts the token only with the key its nonce names, which never leaves the
 * frame: a token in the app's hands gives its scripts no session key. Adding an OAUTH credential
 * is a user action approved in the frame (its `add-credential` signature).
 */
import { WalletError } from '../../errors.js';
import type { PasskeyFrameContext } from './passkeys.js';
import { addCredential } from './passkeys.js';
import { wordsOf } from './words-hookup.js';

type OAuthHandler = (ctx: PasskeyFrameContext, args: readonly unknown[], signal: AbortSignal) => Promise<unknown>;

function accountOf(value: unknown): string {
  const id = typeof value === 'object' && value !== null ? (value as { accountId?: unknown }).accountId : undefined;
  if (typeof id !== 'string' || id === '') throw new WalletError('INVALID_ARGUMENT', 'args.accountId must be a non-empty string');
  return id;
}

export const OAUTH_HANDLERS: Readonly<Record<'prepareOAuth' | 'completeOAuth' | 'addOAuthCredential', OAuthHandler>> = {
  /** A key made and kept in the frame; up go its nonce and public key (public facts). */
  prepareOAuth: async (ctx, args) => {
    const login = await ctx.wallet.prepareOAuth(args[0] as { accountId: string });
    return { nonce: login.nonce, clientPublicKey: login.clientPublicKey };
  },
  /** The IdP's token verified with the frame's key its nonce names; up goes the session's public facts. */
  completeOAuth: (ctx, args) => ctx.wallet.completeOAuth(args[0] as { oidcToken: string; credentialId?: string }),
  addOAuthCredential: (ctx, args, signal) => {
    accountOf(args[0]);
    // In words from the request the action sends, with whom its token names (security review C3).
    const description = wordsOf(ctx).addOAuth(args[0]);
    if (description === undefined) throw new WalletError('INVALID_ARGUMENT', 'args.oidcToken must be an ID token (a JWT) naming its issuer and an email or a subject');
    return addCredential(ctx, description, signal, () => ctx.wallet.addOAuthCredential(args[0] as { accountId: string; oidcToken: string }));
  },
};
