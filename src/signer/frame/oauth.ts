/**
 * OAuth logins in the signer frame (THREAT-MODEL.md P3): the frame makes the session key, so the
 * IdP's nonce (`hex(SHA-256(utf8(clientPublicKey)))`, wire reference §5.2) binds the frame's key;
 * the parent gets the nonce and the public key to send the user to the IdP, and hands the ID token
 * back. The service accepts the token only with the key its nonce names, which never leaves the
 * frame: a token in the app's hands gives its scripts no session key. Adding an OAUTH credential
 * is a user action approved in the frame (its `add-credential` signature): prompts.ts, loaded with
 * the other prompts on first use.
 */
import type { FrameContext } from './context.js';

type OAuthHandler = (ctx: FrameContext, args: readonly unknown[]) => Promise<unknown>;

export const OAUTH_HANDLERS: Readonly<Record<'prepareOAuth' | 'completeOAuth', OAuthHandler>> = {
  /** A key made and kept in the frame; up go its nonce and public key (public facts). */
  prepareOAuth: async (ctx, args) => {
    const login = await ctx.wallet.prepareOAuth(args[0] as { accountId: string });
    return { nonce: login.nonce, clientPublicKey: login.clientPublicKey };
  },
  /** The IdP's token verified with the frame's key its nonce names; up goes the session's public facts. */
  completeOAuth: (ctx, args) => ctx.wallet.completeOAuth(args[0] as { oidcToken: string; credentialId?: string }),
};
