/**
 * Passkeys (wire reference §5.3) through @simplewebauthn/browser.
 *
 * Registration: our own random challenge → `navigator.credentials.create` (user verification
 * required by default, the account's passkeys in `excludeCredentials`) → signed-retry
 * `POST /auth/credentials` (signed by the current session) with the challenge and the attestation.
 * The account's passkeys come from `GET /auth/credentials`, fetched by `preparePasskeyRegistration`
 * ahead of the click (else by `registerPasskey` itself, a round trip before the ceremony).
 *
 * Login in two steps so that the ceremony runs inside the user's click (iOS refuses it otherwise):
 * `preparePasskeyLogin` makes the session key and fetches the challenge for its `clientPublicKey`
 * ahead of time; `login()` (call it from the click handler) runs `navigator.credentials.get` over
 * utf8(challenge) — the 64 ASCII bytes, never hex- or base64url-decoded — and sends the assertion to
 * `/verify` with the challenge's `Request-Id`.
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialDescriptorJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { base64urlEncode, utf8Encode } from '../crypto/index.js';
import { WalletError, invalidArgument } from '../errors.js';
import { createKeyPlan, parseAuthSession, type KeyPlan, type Session, type WalletContext } from '../session/index.js';
import type { AuthMethod, AuthSession, PasskeyAuthChallenge } from '../types.js';
import { ceremonyConditions, webauthnError } from './webauthn-errors.js';
import { accountIdOf, addCredential, credentialPath, findCredential, listCredentials, refusedAs } from './credentials.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_USER_VERIFICATION = 'required';
const MAX_USER_ID_BYTES = 64;

/**
 * A prepared passkey login (`wallet.preparePasskeyLogin`): the challenge is fetched ahead, so that
 * `login()`, called from the user's click, runs the WebAuthn ceremony within that gesture.
 */
export interface PasskeyLogin {
  /** The PASSKEY credential (`AuthMethod:…`). */
  readonly credentialId: string;
  /** When the fetched challenge expires (server time): prepare again after it. */
  readonly expiresAt: string;
  /** Runs the WebAuthn ceremony and creates the session. Call it from the user's click. */
  login(): Promise<Session>;
}

/**
 * Who runs the WebAuthn ceremonies: by default this page (`navigator.credentials` through
 * @simplewebauthn/browser). The signer frame passes its own (src/signer/frame/passkeys.ts): in the
 * frame, or in a popup on the signer origin where the browser refuses WebAuthn in a frame.
 * A refusal is thrown as the browser's error (a DOMException or one with its `name`).
 */
export interface PasskeyCeremonies {
  get(optionsJSON: PublicKeyCredentialRequestOptionsJSON): Promise<AuthenticationResponseJSON>;
  create(optionsJSON: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON>;
}

/** A wallet's context, with the ceremonies to run (default: this page's). */
export type PasskeyContext = WalletContext & { readonly ceremonies?: PasskeyCeremonies };

async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  if (!browserSupportsWebAuthn()) throw new WalletError('WEBAUTHN_UNSUPPORTED');
  const conditions = ceremonyConditions();
  try {
    return await run();
  } catch (error) {
    throw webauthnError(error, conditions);
  }
}

function randomChallenge(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (typeof c?.getRandomValues !== 'function') throw new WalletError('CRYPTO_UNAVAILABLE');
  return base64urlEncode(c.getRandomValues(new Uint8Array(32)));
}

function pageHost(): string | undefined {
  const host = (globalThis as { location?: { hostname?: unknown } }).location?.hostname;
  return typeof host === 'string' && host !== '' ? host : undefined;
}

/** The passkeys among `credentials` as WebAuthn descriptors (their `credentialId`, the base64url rawId). */
function passkeyDescriptors(credentials: readonly AuthMethod[]): PublicKeyCredentialDescriptorJSON[] {
  return credentials.flatMap((c) =>
    c.type === 'PASSKEY' && typeof c.credentialId === 'string' && c.credentialId !== '' ? [{ type: 'public-key' as const, id: c.credentialId }] : [],
  );
}

/** The account's passkeys, as the service lists them (`GET /auth/credentials`). */
async function accountPasskeys(ctx: WalletContext, accountId: string): Promise<PublicKeyCredentialDescriptorJSON[]> {
  return passkeyDescriptors(await listCredentials(ctx.client, accountId));
}

/** A credentials list the app passed: an array of the account's AuthMethods (anything else is refused). */
function givenCredentials(credentials: unknown, accountId: string): readonly AuthMethod[] {
  const valid =
    Array.isArray(credentials) &&
    credentials.every((c: unknown) => typeof c === 'object' && c !== null && (c as { accountId?: unknown }).accountId === accountId);
  if (!valid) throw invalidArgument('credentials', `the AuthMethods of ${accountId} (as listCredentials answers them)`);
  return credentials as readonly AuthMethod[];
}

/** Per wallet and account: the passkeys fetched by `preparePasskeyRegistration`, for the next registration only. */
const preparedExclusions = new WeakMap<WalletContext, Map<string, PublicKeyCredentialDescriptorJSON[]>>();

/**
 * Fetches the account's passkeys ahead of the click (or takes them from `credentials`, a list the app
 * has just read with listCredentials: no second request), so that `registerPasskey` can start the
 * ceremony at once with them in `excludeCredentials`. Used by the next registration for the
 * account only: prepare again before another one (the list may have changed).
 */
export async function preparePasskeyRegistration(ctx: PasskeyContext, args: { accountId: string; credentials?: readonly AuthMethod[] }): Promise<void> {
  const accountId = accountIdOf(args);
  const passkeys = args.credentials === undefined ? await accountPasskeys(ctx, accountId) : passkeyDescriptors(givenCredentials(args.credentials, accountId));
  let byAccount = preparedExclusions.get(ctx);
  if (byAccount === undefined) preparedExclusions.set(ctx, (byAccount = new Map()));
  byAccount.set(accountId, passkeys);
}

/**
 * Creates a passkey and adds it as a PASSKEY credential. The account must have a session here (checked
 * before the ceremony, so the user is never asked for a passkey that cannot be added). The account's
 * passkeys go in `excludeCredentials`, so an authenticator that already holds one refuses to make
 * another (which would replace it on the device and strand the service's credential): that refusal
 * is PASSKEY_CREDENTIAL_ALREADY_EXISTS, as the service's own for a known credentialId. Errors:
 * NOT_LOGGED_IN, WEBAUTHN_*, PASSKEY_CREDENTIAL_ALREADY_EXISTS, INVALID_INPUT (attestation refused).
 */
export async function registerPasskey(ctx: PasskeyContext, args: { accountId: string; nickname: string }): Promise<AuthMethod> {
  const accountId = accountIdOf(args);
  const { nickname } = args;
  if (typeof nickname !== 'string' || nickname.trim() === '') throw invalidArgument('nickname', 'a non-empty string');
  if (ctx.sessions.current(accountId) === null) throw new WalletError('NOT_LOGGED_IN', `registering a passkey needs a session for ${accountId}`);
  // Prepared: no await before the ceremony, which then starts within the caller's task (the click).
  const prepared = preparedExclusions.get(ctx);
  const excludeCredentials = prepared?.get(accountId) ?? (await accountPasskeys(ctx, accountId));
  prepared?.delete(accountId);
  const challenge = randomChallenge();
  const { rpId, rpName, timeoutMs, userVerification = DEFAULT_USER_VERIFICATION } = ctx.passkey;
  const userId = utf8Encode(accountId).slice(0, MAX_USER_ID_BYTES);
  const optionsJSON: PublicKeyCredentialCreationOptionsJSON = {
    challenge,
    rp: { name: rpName ?? rpId ?? pageHost() ?? 'Wallet', ...(rpId !== undefined ? { id: rpId } : {}) },
    user: { id: base64urlEncode(userId), name: nickname, displayName: nickname },
    pubKeyCredParams: [
      { type: 'public-key', alg: -7 },
      { type: 'public-key', alg: -257 },
    ],
    timeout: timeoutMs ?? DEFAULT_TIMEOUT_MS,
    attestation: 'none',
    excludeCredentials,
    authenticatorSelection: { residentKey: 'preferred', userVerification },
  };
  let response: Awaited<ReturnType<typeof startRegistration>>;
  try {
    response = await ceremony(() => (ctx.ceremonies ? ctx.ceremonies.create(optionsJSON) : startRegistration({ optionsJSON })));
  } catch (error) {
    // Nothing was sent: the same list serves the next try (unless another was prepared meanwhile).
    if (prepared !== undefined && !prepared.has(accountId)) prepared.set(accountId, excludeCredentials);
    throw error;
  }
  const transports = response.response.transports;
  return addCredential<AuthMethod>(ctx, {
    type: 'PASSKEY',
    accountId,
    nickname,
    challenge,
    attestation: {
      credentialId: response.rawId,
      clientDataJson: response.response.clientDataJSON,
      attestationObject: response.response.attestationObject,
      ...(transports !== undefined && transports.length > 0 ? { transports } : {}),
    },
  });
}

function parseChallenge(value: unknown): PasskeyAuthChallenge {
  const v = value as Partial<PasskeyAuthChallenge> | null;
  if (
    typeof v !== 'object' || v === null ||
    typeof v.challenge !== 'string' || v.challenge === '' ||
    typeof v.requestId !== 'string' || v.requestId === '' ||
    typeof v.credentialId !== 'string' || v.credentialId === '' ||
    typeof v.expiresAt !== 'string'
  ) {
    throw new WalletError('BAD_RESPONSE', 'expected a PasskeyAuthChallenge {credentialId, challenge, requestId, expiresAt}');
  }
  return v as PasskeyAuthChallenge;
}

/**
 * Fetches the challenge for a new session key ahead of the click. With several passkeys on the
 * account, pass `credentialId` (INVALID_ARGUMENT lists them otherwise). `plan` is for the legacy entry.
 */
export async function preparePasskeyLogin(
  ctx: PasskeyContext,
  args: { accountId: string; credentialId?: string },
  givenPlan?: KeyPlan,
): Promise<PasskeyLogin> {
  const accountId = accountIdOf(args);
  const credential = await findCredential(ctx.client, accountId, 'PASSKEY', args.credentialId);
  const plan = givenPlan ?? (await createKeyPlan());
  const challenge = parseChallenge(
    await ctx.client.request<unknown>({ method: 'POST', path: credentialPath(credential.id, 'challenge'), body: { clientPublicKey: plan.clientPublicKey } }),
  );
  const { rpId, timeoutMs, userVerification = DEFAULT_USER_VERIFICATION } = ctx.passkey;
  const optionsJSON: PublicKeyCredentialRequestOptionsJSON = {
    // simplewebauthn base64url-decodes this back to the bytes the authenticator signs: utf8(challenge).
    challenge: base64urlEncode(utf8Encode(challenge.challenge)),
    allowCredentials: [{ type: 'public-key', id: challenge.credentialId }],
    userVerification,
    timeout: timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(rpId !== undefined ? { rpId } : {}),
  };
  return {
    credentialId: credential.id,
    expiresAt: challenge.expiresAt,
    async login() {
      // The login starts now (synchronously: the ceremony still starts inside the click); a logout
      // called during the ceremony wins (I1).
      const loggingIn = ctx.sessions.loginStarts(accountId);
      const response = await ceremony(() => (ctx.ceremonies ? ctx.ceremonies.get(optionsJSON) : startAuthentication({ optionsJSON })));
      // After the ceremony (it must start inside the click): the login lock, shared, until stored.
      return loggingIn(async (ticket) => {
        const { clientDataJSON, authenticatorData, signature, userHandle } = response.response;
        let answer: AuthSession;
        try {
          answer = parseAuthSession(
            // The transport's signed call carries Request-Id on the first leg; verify answers at once,
            // so no signer is ever asked for (a 202 here would be a protocol breach).
            await ctx.client.signed<unknown>({
              method: 'POST',
              path: credentialPath(credential.id, 'verify'),
              requestId: challenge.requestId,
              purpose: 'passkey-verify',
              getSigner: () => {
                throw new WalletError('BAD_RESPONSE', 'passkey verify asked for a signature');
              },
              body: {
                type: 'PASSKEY',
                assertion: {
                  credentialId: response.rawId,
                  clientDataJson: clientDataJSON,
                  authenticatorData,
                  signature,
                  ...(typeof userHandle === 'string' && userHandle !== '' ? { userHandle } : {}),
                },
              },
            }),
          );
        } catch (error) {
          // The service's 401 for an assertion.
          throw refusedAs('PASSKEY_ASSERTION_REJECTED', error);
        }
        const key = await plan.finish(answer);
        return ctx.sessions.establish(answer, {
          accountId,
          credentialId: credential.id,
          credentialType: 'PASSKEY',
          key,
          legacy: plan.legacy,
          ticket,
        });
      });
    },
  };
}
