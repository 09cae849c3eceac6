/**
 * OAuth / OIDC login (wire reference §5.2). The session key is made first, because the IdP request
 * must carry `nonce = hex(SHA-256(utf8(clientPublicKey)))`; the IdP's token then goes to `/verify`
 * with that key's public key, and the answer is the session. Also adding an OAUTH credential.
 *
 * Decision: the prepared key is stored in the key store at once (purpose `session`, no session id
 * yet) with a metadata record keyed by the nonce, so a full-page redirect to the IdP loses nothing:
 * after the redirect `completeOAuth({ oidcToken })` finds the key by the token's `nonce` claim.
 * Prepared logins are forgotten after an hour (an IdP round trip takes minutes).
 */
import { base64urlDecode, oauthNonce, sessionKeyFromPair, utf8Decode, type SessionKey } from '../crypto/index.js';
import { WalletError, invalidArgument } from '../errors.js';
import { parseAuthSession, type KeyPlan, type Session, type WalletContext } from '../session/index.js';
import type { AuthMethod, AuthSession } from '../types.js';
import { accountIdOf, addCredential, checkAccountId, credentialPath, findCredential, refusedAs } from './credentials.js';

const PENDING_PREFIX = 'oauth-pending:';
const PENDING_TTL_MS = 60 * 60 * 1000;

/**
 * A prepared OAuth login (`wallet.prepareOAuth`): a session key is made and its nonce waits for the
 * IdP. Send the user to the IdP with `nonce`, then call `complete` with the ID token it returns
 * (also after a redirect: the prepared login is kept in the key store for an hour).
 */
export interface OAuthLogin {
  /** Put this in the IdP's authorization request (`nonce=`). */
  readonly nonce: string;
  /** The session key's public key (compressed hex; uncompressed in the legacy flow). */
  readonly clientPublicKey: string;
  /** Verifies the IdP's ID token and creates the session. OAUTH_TOKEN_REJECTED when the service refuses it. */
  complete(oidcToken: string, credentialId?: string): Promise<Session>;
}

interface PendingOAuth {
  accountId: string;
  publicKeyHex: string;
  createdAt: number;
}

function checkToken(oidcToken: unknown): string {
  if (typeof oidcToken !== 'string' || oidcToken.split('.').length !== 3) throw invalidArgument('oidcToken', 'an OIDC ID token (a JWT)');
  return oidcToken;
}

/** The token's claims, read without verification (the service verifies; we only route by them). */
export function readClaims(oidcToken: string): Record<string, unknown> {
  const payload = checkToken(oidcToken).split('.')[1] ?? '';
  try {
    const claims: unknown = JSON.parse(utf8Decode(base64urlDecode(payload.replace(/=+$/, ''), 'oidcToken')));
    if (typeof claims === 'object' && claims !== null && !Array.isArray(claims)) return claims as Record<string, unknown>;
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'oidcToken payload is not base64url JSON', { cause });
  }
  throw invalidArgument('oidcToken', 'a JWT whose payload is a JSON object');
}

/** `/verify` with the token and the plan's key; the session is adopted. Shared with the legacy entry. */
export async function verifyOAuth(
  ctx: WalletContext,
  args: { accountId: string; oidcToken: string; credentialId?: string; plan: KeyPlan },
): Promise<Session> {
  const accountId = checkAccountId(args.accountId);
  const oidcToken = checkToken(args.oidcToken);
  const email = readClaims(oidcToken).email;
  // The login starts now: a logout called from here on wins (I1), however long the lookup takes.
  const loggingIn = ctx.sessions.loginStarts(accountId);
  // Several OAUTH credentials (Google and Apple, say): the one whose nickname is the token's email.
  const credential = await findCredential(ctx.client, accountId, 'OAUTH', args.credentialId, (list) =>
    typeof email === 'string' ? list.find((c) => c.nickname === email) : undefined,
  );
  // A login in flight holds the account's login lock (shared) until its session is stored.
  return loggingIn(async (ticket) => {
    let answer: AuthSession;
    try {
      answer = parseAuthSession(await ctx.client.request<unknown>({
        method: 'POST',
        path: credentialPath(credential.id, 'verify'),
        body: { type: 'OAUTH', oidcToken, clientPublicKey: args.plan.clientPublicKey },
      }));
    } catch (error) {
      // The service's 401 for a token.
      throw refusedAs('OAUTH_TOKEN_REJECTED', error);
    }
    const key = await args.plan.finish(answer);
    return ctx.sessions.establish(answer, {
      accountId,
      credentialId: credential.id,
      credentialType: 'OAUTH',
      key,
      legacy: args.plan.legacy,
      ticket,
    });
  });
}

async function prunePending(ctx: WalletContext): Promise<void> {
  const cutoff = Date.now() - PENDING_TTL_MS;
  for (const [name, value] of await ctx.keyStore.meta.list()) {
    if (!name.startsWith(PENDING_PREFIX)) continue;
    const pending = value as Partial<PendingOAuth> | undefined;
    if (typeof pending?.createdAt === 'number' && pending.createdAt >= cutoff) continue;
    await ctx.keyStore.meta.delete(name);
    if (typeof pending?.publicKeyHex !== 'string') continue;
    // A key that became a session's key (its sessionId is set) is the session manager's now.
    const key = await ctx.keyStore.get(pending.publicKeyHex).catch(() => undefined);
    if (key !== undefined && key.sessionId === undefined) await ctx.keyStore.delete(pending.publicKeyHex).catch(() => false);
  }
}

async function completePending(ctx: WalletContext, nonce: string, oidcToken: string, credentialId: string | undefined): Promise<Session> {
  const pending = await ctx.keyStore.meta.get<PendingOAuth>(PENDING_PREFIX + nonce);
  const stored = pending ? await ctx.keyStore.get(pending.publicKeyHex) : undefined;
  if (!pending || !stored) throw new WalletError('OAUTH_NOT_PREPARED');
  const key: SessionKey = await sessionKeyFromPair({ privateKey: stored.privateKey, publicKey: stored.publicKey });
  const plan: KeyPlan = { clientPublicKey: key.publicKeyHex, legacy: false, finish: async () => key };
  const session = await verifyOAuth(ctx, { accountId: pending.accountId, oidcToken, plan, ...(credentialId !== undefined ? { credentialId } : {}) });
  await ctx.keyStore.meta.delete(PENDING_PREFIX + nonce).catch(() => undefined);
  return session;
}

/** Makes (and stores) the session key and returns the nonce for the IdP request. */
export async function prepareOAuth(ctx: WalletContext, args: { accountId: string }): Promise<OAuthLogin> {
  const accountId = accountIdOf(args);
  await prunePending(ctx).catch(() => undefined);
  const stored = await ctx.keyStore.generate({ purpose: 'session', accountId });
  const nonce = await oauthNonce(stored.publicKeyHex);
  const pending: PendingOAuth = { accountId, publicKeyHex: stored.publicKeyHex, createdAt: Date.now() };
  await ctx.keyStore.meta.put(PENDING_PREFIX + nonce, pending);
  return {
    nonce,
    clientPublicKey: stored.publicKeyHex,
    complete: (oidcToken, credentialId) => completePending(ctx, nonce, oidcToken, credentialId),
  };
}

/**
 * Completes a login prepared earlier, possibly before a redirect: the key is found by the token's
 * `nonce` claim. OAUTH_NOT_PREPARED when no prepared login here matches it.
 */
export async function completeOAuth(ctx: WalletContext, args: { oidcToken: string; credentialId?: string }): Promise<Session> {
  if (typeof args !== 'object' || args === null) throw invalidArgument('args', 'an object');
  const nonce = readClaims(checkToken(args.oidcToken)).nonce;
  if (typeof nonce !== 'string' || !/^[0-9a-f]{64}$/.test(nonce)) throw new WalletError('OAUTH_NOT_PREPARED', 'the token carries no nonce of ours');
  return completePending(ctx, nonce, args.oidcToken, args.credentialId);
}

/** Adds an OAUTH credential for the token's identity (signed by the account's current session). */
export async function addOAuthCredential(ctx: WalletContext, args: { accountId: string; oidcToken: string }): Promise<AuthMethod> {
  const accountId = accountIdOf(args);
  return addCredential<AuthMethod>(ctx, { type: 'OAUTH', accountId, oidcToken: checkToken(args.oidcToken) });
}
