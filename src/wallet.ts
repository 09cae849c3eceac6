/**
 * The facade most apps use: one config object, a method for every login flow and session operation
 * (and, in the marked block, every signed action), typed events.
 *
 * Importing this module touches no browser global: the key store, the channel between tabs and the
 * event listeners are created or opened on first use.
 */
import type { TrustedKeys } from './crypto/index.js';
import { invalidArgument } from './errors.js';
import { addEmailOtp } from './flows/email-otp.js';
import { addOAuthCredential, completeOAuth, prepareOAuth, type OAuthLogin } from './flows/oauth.js';
import { startOtpLogin, type OtpLogin, type OtpType } from './flows/otp.js';
import { preparePasskeyLogin, registerPasskey, type PasskeyLogin } from './flows/passkey.js';
import { addSmsOtp } from './flows/sms-otp.js';
import { createKeyStore, type KeyStore } from './keys/index.js';
import { WALLET_CONTEXT, type PasskeyConfig, type WalletContext } from './session/context.js';
import { createSessionManager, type ManagedSessions } from './session/manager.js';
import type { Session, SessionEvents } from './session/types.js';
import { createClient, type OnBeforeSign, type RequestLogEntry } from './transport/index.js';
import type { AuthMethod, AuthSession } from './types.js';
// ---- signed actions (src/actions/) ----
import * as actions from './actions/index.js';
import type { ChangeContactOptions, ContactChange, CreateDelegatedKeyArgs, CreateQuoteArgs, DelegatedKeyFilter, ExecuteQuoteOptions, InternalAccountPatch } from './actions/index.js';
import type { Customer, DelegatedKey, InternalAccount, Quote } from './types.js';

export interface WalletConfig {
  /** The proxy (e.g. '/api/wallet'), or the service's `{base_url}` in tests. */
  baseUrl: string;
  /** Enclave keys trusted to sign OTP target bundles and export envelopes, or 'skip-verification'. */
  trustedKeys: TrustedKeys;
  fetch?: typeof globalThis.fetch;
  /** Sent with every request (e.g. a CSRF token for the proxy). Never platform credentials in a browser. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Stamp header name; default `Service-Wallet-Signature`. */
  signatureHeader?: string;
  /** Default: createKeyStore() (IndexedDB, memory fallback). */
  keyStore?: KeyStore;
  /** Shown every payload before it is signed; return false to refuse (SIGNING_REFUSED). */
  onBeforeSign?: OnBeforeSign;
  /** Every HTTP leg (request logs, tests counting requests). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Fraction of a session's lifetime left that triggers the automatic refresh; default 1/3. */
  refreshWhenRemaining?: number;
  /** Default true. */
  autoRefresh?: boolean;
  /** Coordinate tabs (Web Locks + BroadcastChannel where present); default true. `name` separates wallets on different key stores. */
  crossTab?: boolean | { name?: string };
  passkey?: PasskeyConfig;
}

export type WalletEvents = SessionEvents;

export interface Wallet {
  on<E extends keyof WalletEvents>(event: E, listener: (payload: WalletEvents[E]) => void): () => void;
  /** Loads the sessions kept in this browser (call at startup, after attaching listeners). */
  restore(): Promise<Session[]>;
  /** The current session of the account (default: the account used last), or null. */
  session(accountId?: string): Session | null;
  /** Every session this browser holds. */
  sessions(): Session[];
  /** The service's clock as estimated here (epoch ms): compare `session.expiresAt` with it. */
  serverNow(): number;

  // ---- login flows (src/flows/) ----
  /** Sends a code (EMAIL_OTP by default) and returns the login that `verify(code)` finishes. */
  startOtpLogin(args: { accountId: string; type?: OtpType; credentialId?: string }): Promise<OtpLogin>;
  /** Makes the session key first and returns the IdP `nonce`; `complete(idToken)` finishes. */
  prepareOAuth(args: { accountId: string }): Promise<OAuthLogin>;
  /** Finishes a prepared OAuth login after a redirect: the key is found by the token's nonce. */
  completeOAuth(args: { oidcToken: string; credentialId?: string }): Promise<Session>;
  /** Fetches the passkey challenge up front; call `login()` inside the user's click. */
  preparePasskeyLogin(args: { accountId: string; credentialId?: string }): Promise<PasskeyLogin>;
  /** Creates a passkey and adds it as a credential (needs a session). */
  registerPasskey(args: { accountId: string; nickname: string }): Promise<AuthMethod>;
  /** Adds an SMS_OTP credential (needs a session); `verify(code)` activates it and logs in with it. */
  addSmsOtp(args: { accountId: string }): Promise<OtpLogin>;
  /** Re-adds the EMAIL_OTP credential (needs a session); `verify(code)` activates it. */
  addEmailOtp(args: { accountId: string }): Promise<OtpLogin>;
  /** Adds an OAUTH credential for the token's identity (needs a session). */
  addOAuthCredential(args: { accountId: string; oidcToken: string }): Promise<AuthMethod>;

  // ---- sessions (src/session/) ----
  refresh(accountId?: string): Promise<Session>;
  logout(accountId?: string): Promise<void>;
  listSessions(accountId?: string): Promise<AuthSession[]>;
  signOutOtherDevices(accountId?: string): Promise<number>;

  // ==== signed actions (src/actions/): wired here by the actions layer ====
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

function checkTrustedKeys(value: unknown): TrustedKeys {
  if (value === 'skip-verification') return value;
  if (Array.isArray(value) && value.every((k) => typeof k === 'string' && k !== '')) return [...(value as string[])];
  throw invalidArgument('config.trustedKeys', "an array of enclave public keys (hex) or 'skip-verification'");
}

export function createWallet(config: WalletConfig): Wallet {
  if (typeof config !== 'object' || config === null) throw invalidArgument('config', 'an object');
  const trustedKeys = checkTrustedKeys(config.trustedKeys);
  if (config.fetch !== undefined && typeof config.fetch !== 'function') throw invalidArgument('config.fetch', 'a function');
  const crossTabName = typeof config.crossTab === 'object' && config.crossTab !== null ? config.crossTab.name : undefined;
  if (crossTabName !== undefined && (typeof crossTabName !== 'string' || crossTabName === '')) throw invalidArgument('config.crossTab.name', 'a non-empty string');
  const passkey: PasskeyConfig = { ...(config.passkey ?? {}) };

  const keyStore = config.keyStore ?? createKeyStore();
  let sessions: ManagedSessions | undefined;
  const userFetch = config.fetch;
  // Every answer's Date header feeds the server clock that session expiry is judged on.
  const observingFetch: typeof globalThis.fetch = async (input, init) => {
    const response = await (userFetch ?? globalThis.fetch)(input, init);
    sessions?.clock.observeDateHeader(response.headers.get('Date'));
    return response;
  };
  const client = createClient({
    baseUrl: config.baseUrl,
    fetch: observingFetch,
    ...(config.headers !== undefined ? { headers: config.headers } : {}),
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.signatureHeader !== undefined ? { signatureHeader: config.signatureHeader } : {}),
    ...(config.onBeforeSign !== undefined ? { onBeforeSign: config.onBeforeSign } : {}),
    ...(config.onRequest !== undefined ? { onRequest: config.onRequest } : {}),
  });
  sessions = createSessionManager({
    client,
    keyStore,
    ...(config.refreshWhenRemaining !== undefined ? { refreshWhenRemaining: config.refreshWhenRemaining } : {}),
    ...(config.autoRefresh !== undefined ? { autoRefresh: config.autoRefresh } : {}),
    crossTab: config.crossTab !== false,
    ...(crossTabName !== undefined ? { namespace: crossTabName } : {}),
  });
  const manager = sessions;
  const ctx: WalletContext = { client, sessions: manager, keyStore, trustedKeys, passkey };

  const wallet: Wallet = {
    on: (event, listener) => manager.on(event, listener),
    restore: () => manager.restore(),
    session: (accountId) => manager.current(accountId),
    sessions: () => manager.all(),
    serverNow: () => manager.serverNow(),

    startOtpLogin: (args) => startOtpLogin(ctx, args),
    prepareOAuth: (args) => prepareOAuth(ctx, args),
    completeOAuth: (args) => completeOAuth(ctx, args),
    preparePasskeyLogin: (args) => preparePasskeyLogin(ctx, args),
    registerPasskey: (args) => registerPasskey(ctx, args),
    addSmsOtp: (args) => addSmsOtp(ctx, args),
    addEmailOtp: (args) => addEmailOtp(ctx, args),
    addOAuthCredential: (args) => addOAuthCredential(ctx, args),

    refresh: (accountId) => manager.refresh(accountId),
    logout: (accountId) => manager.logout(accountId),
    listSessions: (accountId) => manager.list(accountId),
    signOutOtherDevices: (accountId) => manager.signOutOtherDevices(accountId),

    // ==== signed actions (src/actions/): wired here by the actions layer ====
    listCredentials: (accountId) => actions.listCredentials(ctx, accountId),
    deleteCredential: (credentialId, accountId) => actions.deleteCredential(ctx, credentialId, accountId),
    createDelegatedKey: (args) => actions.createDelegatedKey(ctx, args),
    listDelegatedKeys: (filter) => actions.listDelegatedKeys(ctx, filter),
    getDelegatedKey: (id) => actions.getDelegatedKey(ctx, id),
    revokeDelegatedKey: (id, accountId) => actions.revokeDelegatedKey(ctx, id, accountId),
    updateAccount: (accountId, patch) => actions.updateAccount(ctx, accountId, patch),
    exportWallet: (accountId) => actions.exportWallet(ctx, accountId),
    createQuote: (args) => actions.createQuote(ctx, args),
    executeQuote: (quoteOrId, options) => actions.executeQuote(ctx, quoteOrId, options),
    changeContact: (customerId, change, options) => actions.changeContact(ctx, customerId, change, options),
    // ==== end of signed actions ====

    dispose: () => manager.dispose(),
    [WALLET_CONTEXT]: ctx,
  };
  return wallet;
}
