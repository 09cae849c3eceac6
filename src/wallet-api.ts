/**
 * The public shape of the wallet: the config of `createWallet` ({@link WalletConfig}), its events
 * and the {@link Wallet} interface. `createWallet` (wallet.ts) implements it.
 */
import type { TrustedKeys } from './crypto/index.js';
import type { OAuthLogin } from './flows/oauth.js';
import type { OtpLogin, OtpType, StartOtpLoginArgs } from './flows/otp.js';
import type { PasskeyLogin } from './flows/passkey.js';
import type { KeyStore } from './keys/index.js';
import type { PasskeyConfig, WALLET_CONTEXT, WalletContext } from './session/context.js';
import type { SessionSnapshot } from './session/store.js';
import type { Session, SessionEvents } from './session/types.js';
import type { OnBeforeSign, RequestLogEntry } from './transport/index.js';
import type { AuthMethod, AuthSession } from './types.js';
// ---- signed actions (src/actions/) ----
import type { ChangeContactOptions, ContactChange, CreateDelegatedKeyArgs, CreateQuoteArgs, DelegatedKeyFilter, ExecuteQuoteOptions, InternalAccountPatch } from './actions/index.js';
import type { Customer, DelegatedKey, InternalAccount, Quote } from './types.js';

/**
 * The config of `createWallet`: where the proxy is, which enclave keys to trust, and the
 * hooks of the app. Only `baseUrl` and `trustedKeys` are required.
 *
 * @example
 * ```ts
 * const config: WalletConfig = {
 *   baseUrl: '/api',                                  // the proxy mounted on your backend
 *   trustedKeys: [ENCLAVE_PUBLIC_KEY_HEX],           // signs OTP bundles and export envelopes
 *   headers: { 'X-CSRF-Token': csrfToken },          // never platform credentials
 *   onBeforeSign: ({ payloadToSign, purpose, automatic }) => automatic || confirm(`Sign ${purpose}?`),
 *   passkey: { rpId: 'example.com', rpName: 'Example' },
 * };
 * const wallet = createWallet(config);
 * ```
 */
export interface WalletConfig {
  /** The proxy (e.g. '/api/wallet'), or the service's `{base_url}` in tests. */
  baseUrl: string;
  /** Enclave keys trusted to sign OTP target bundles and export envelopes, or 'skip-verification'. */
  trustedKeys: TrustedKeys;
  /**
   * The fetch every request goes through; default `globalThis.fetch`, looked up at each call (so a
   * test or a service worker can replace it later). The wallet reads each answer's `Date` header
   * from it to estimate the service's clock.
   */
  fetch?: typeof globalThis.fetch;
  /** Sent with every request (e.g. a CSRF token for the proxy). Never platform credentials in a browser. */
  headers?: Record<string, string>;
  /** Time allowed for each HTTP request, answer body included, in ms; default 30 000 (then TIMEOUT). */
  timeoutMs?: number;
  /** Stamp header name; default `Service-Wallet-Signature`. */
  signatureHeader?: string;
  /** Default: createKeyStore() (IndexedDB, memory fallback). */
  keyStore?: KeyStore;
  /**
   * Shown every payload before it is signed; return false to refuse (SIGNING_REFUSED). It gets an
   * AbortSignal (`signal`) that fires when the library stops waiting (or a logout cancels the call).
   * The automatic session refresh comes with `automatic: true`: answer it from policy, at once (see
   * `automaticSignTimeoutMs`). Ending sessions because of a logout (or of the refresh or login that
   * made them being undone or replaced) is not shown: the call that caused it was the approval.
   */
  onBeforeSign?: OnBeforeSign;
  /** Longest wait for onBeforeSign on a call of the app; then that call fails (SIGNING_REFUSED). Default 120 000 ms. */
  onBeforeSignTimeoutMs?: number;
  /**
   * Longest wait for onBeforeSign on an automatic signature; default 2 000 ms. Past it the automatic
   * refresh fails (`refresh-failed`) and is not retried: the session runs to its expiry unless the
   * app refreshes it (`wallet.refresh()`).
   */
  automaticSignTimeoutMs?: number;
  /** Every HTTP leg (request logs, tests counting requests). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Fraction of a session's lifetime left that triggers the automatic refresh; default 1/3. */
  refreshWhenRemaining?: number;
  /** Default true. */
  autoRefresh?: boolean;
  /** Coordinate tabs (Web Locks + BroadcastChannel where present); default true. `name` separates wallets on different key stores. */
  crossTab?: boolean | { name?: string };
  /** Passkey settings: `rpId` (default the page's host), `rpName`, the ceremony's `timeoutMs` (default 60 000). */
  passkey?: PasskeyConfig;
}

/** The events of {@link Wallet.on}, with each one's payload. */
export type WalletEvents = SessionEvents;

/**
 * An embedded wallet in this browser: its login flows, its sessions (kept across reloads, shared
 * by the tabs) and its signed actions. Made by `createWallet`. Every method fails with a
 * {@link WalletError}; a login flow's or the signed actions' code loads at its first call.
 *
 * @example
 * ```ts
 * wallet.on('expired', () => showLogin());
 * const [session] = await wallet.restore();
 * if (!session) {
 *   const login = await wallet.startOtpLogin({ accountId });
 *   await login.verify(await askForCode());
 * }
 * await wallet.updateAccount(accountId, { privateEnabled: true });
 * await wallet.logout();
 * ```
 */
export interface Wallet {
  /**
   * Calls `listener` on each `event` (`session`, `expiring`, `expired`, `refreshed`,
   * `refresh-failed`, `logged-out`, `key-evicted`, `storage-fallback`, `refreshing`, `changed`,
   * `end-refused`; see
   * {@link SessionEvents}; UIs usually want {@link Wallet.subscribe} instead);
   * returns the function that removes it. Attach before `restore()` to hear what it finds.
   */
  on<E extends keyof WalletEvents>(event: E, listener: (payload: WalletEvents[E]) => void): () => void;
  /** Loads the sessions kept in this browser (call at startup, after attaching listeners). */
  restore(): Promise<Session[]>;
  /** The current session of the account (default: the account used last), or null. */
  session(accountId?: string): Session | null;
  /** Every session this browser holds. */
  sessions(): Session[];
  /** The service's clock as estimated here (epoch ms): compare `session.expiresAt` with it. */
  serverNow(): number;
  /**
   * Calls `listener` after each change of {@link Wallet.getSnapshot}'s value (sign-in, refresh,
   * expiry window, logout here or in another tab); returns the function that removes it. For UI
   * bindings (React's `useSyncExternalStore`, `embedded-wallet-signer/react`).
   */
  subscribe(listener: () => void): () => void;
  /**
   * The default account's session as an immutable snapshot (status, account, expiry on the
   * service's clock, which tab made it): the same object until something in it changes.
   * `initializing` until `restore()` settles.
   */
  getSnapshot(): SessionSnapshot;

  // ---- login flows (src/flows/): each flow's code is loaded at its first call (see above) ----
  /**
   * Sends a code (EMAIL_OTP by default) and returns the login that `verify(code)` finishes. With
   * the proxy's email-first login mode, `{ email }` (or `{ phone }`) alone: the backend finds or
   * provisions the customer and its wallet account.
   */
  startOtpLogin(args: StartOtpLoginArgs): Promise<OtpLogin>;
  /** Makes the session key first and returns the IdP `nonce`; `complete(idToken)` finishes. */
  prepareOAuth(args: { accountId: string }): Promise<OAuthLogin>;
  /** Finishes a prepared OAuth login after a redirect: the key is found by the token's nonce. */
  completeOAuth(args: { oidcToken: string; credentialId?: string }): Promise<Session>;
  /** Fetches the passkey challenge up front; call `login()` inside the user's click. */
  preparePasskeyLogin(args: { accountId: string; credentialId?: string }): Promise<PasskeyLogin>;
  /**
   * Loads the passkey code (a chunk of its own, fetched on first use) and fetches the account's
   * passkeys (`GET /auth/credentials`), which the next `registerPasskey` for the account sends in
   * `excludeCredentials`. Call it before the click that registers a passkey (e.g. when the screen
   * shows, and again after the credentials changed) so that `registerPasskey` starts the WebAuthn
   * ceremony at once inside the click: browsers that tie the ceremony to the user's gesture (Safari)
   * refuse it after a wait. An app that has just read the account's credentials (`listCredentials`)
   * passes them as `credentials`: the passkeys are taken from that list, with no second request.
   * @example
   * const credentials = await wallet.listCredentials(accountId);
   * await wallet.preparePasskeyRegistration({ accountId, credentials });
   * button.onclick = () => wallet.registerPasskey({ accountId, nickname: 'Laptop' });
   */
  preparePasskeyRegistration(args: { accountId: string; credentials?: readonly AuthMethod[] }): Promise<void>;
  /**
   * Creates a passkey and adds it as a credential (needs a session). Call it from the user's click,
   * after `preparePasskeyRegistration` has resolved: the ceremony then starts synchronously within
   * the click's task (without it, the account's passkeys are fetched first). An authenticator that
   * already holds one of the account's passkeys refuses: PASSKEY_CREDENTIAL_ALREADY_EXISTS.
   */
  registerPasskey(args: { accountId: string; nickname: string }): Promise<AuthMethod>;
  /** Adds an SMS_OTP credential (needs a session); `verify(code)` activates it and logs in with it. */
  addSmsOtp(args: { accountId: string }): Promise<OtpLogin>;
  /** Re-adds the EMAIL_OTP credential (needs a session); `verify(code)` activates it. */
  addEmailOtp(args: { accountId: string }): Promise<OtpLogin>;
  /** Adds an OAUTH credential for the token's identity (needs a session). */
  addOAuthCredential(args: { accountId: string; oidcToken: string }): Promise<AuthMethod>;

  // ---- sessions (src/session/) ----
  /**
   * Replaces the account's current session (default: the account used last) by a new one with a
   * fresh key, signed by the old one, then ends the old one on the service; resolves to the new
   * session (`refreshed` fires in every tab). Sessions also refresh themselves (`autoRefresh`).
   * Errors: NOT_LOGGED_IN, SESSION_EXPIRED or KEY_EVICTED when there is no usable session;
   * SIGNING_REFUSED when onBeforeSign refuses or does not answer in time; NOT_LOGGED_IN when a
   * logout (in any tab) came while it was on its way (the session it made is ended).
   */
  refresh(accountId?: string): Promise<Session>;
  /**
   * Ends every session of the account (default: the account used last) held in this browser, on
   * the service and here, in every tab (`logged-out` with reason `user` here, `other-tab` there).
   * It wins over anything in flight: a refresh on the wire in any tab is waited for and its session
   * ended too. When it resolves, no tab holds a session of the account and no key of it is stored.
   */
  logout(accountId?: string): Promise<void>;
  /**
   * The account's active sessions on the service (`GET /auth/sessions`): this browser's and other
   * devices' (at most 4 per browser). One request; needs no session of this browser.
   */
  listSessions(accountId?: string): Promise<AuthSession[]>;
  /**
   * Ends the account's sessions on the service that this browser does not hold (other devices and
   * browsers), each signed by this browser's session; resolves to how many were ended. A login
   * under way in any tab of this browser is waited for, so its session is never among them.
   */
  signOutOtherDevices(accountId?: string): Promise<number>;

  // ==== signed actions (src/actions/): wired here by the actions layer; loaded at the first call ====
  /** The account's credentials (default: the current session's account). One request. */
  listCredentials(accountId?: string): Promise<AuthMethod[]>;
  /**
   * Deletes a credential, signed by a session of another credential of the account held here
   * (else OTHER_CREDENTIAL_SESSION_REQUIRED before any request). Two requests. Sessions of the
   * deleted credential held here are dropped.
   */
  deleteCredential(credentialId: string, accountId?: string): Promise<void>;
  /** Creates the card funding source's delegated key: three signed legs, same body. 409 if one is ACTIVE. */
  createDelegatedKey(args: CreateDelegatedKeyArgs): Promise<DelegatedKey>;
  /** Delegated keys by wallet and/or funding source (every page). */
  listDelegatedKeys(filter: DelegatedKeyFilter): Promise<DelegatedKey[]>;
  /** One delegated key by id (plain `GET`). One request. */
  getDelegatedKey(id: string): Promise<DelegatedKey>;
  /** Revokes a delegated key → REVOKED (signed with `accountId`'s session only if the service asks). */
  revokeDelegatedKey(id: string, accountId?: string): Promise<DelegatedKey>;
  /** `PATCH /internal-accounts/{id}`, signed by the wallet's session. Two requests. */
  updateAccount(accountId: string, patch: InternalAccountPatch): Promise<InternalAccount>;
  /** Exports the wallet: resolves to its mnemonic, once (never stored or logged). Two requests. */
  exportWallet(accountId?: string): Promise<string>;
  /** `POST /quotes` between two accounts (plain). One request. */
  createQuote(args: CreateQuoteArgs): Promise<Quote>;
  /** Stamps the quote's EMBEDDED_WALLET payload and executes it with an Idempotency-Key. One request (two given an id). */
  executeQuote(quoteOrId: Quote | string, options?: ExecuteQuoteOptions): Promise<Quote>;
  /** Changes the customer's email or phone (one per call), signed when the service asks. */
  changeContact(customerId: string, change: ContactChange, options?: ChangeContactOptions): Promise<Customer>;
  // ==== end of signed actions ====

  /** Stops timers and listeners, closes the channel to other tabs. */
  dispose(): void;
  /** Internals for the legacy entry and the actions layer (see session/context.ts). */
  readonly [WALLET_CONTEXT]: WalletContext;
}
