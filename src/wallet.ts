/**
 * The facade most apps use: one config object, a method for every login flow and session operation
 * (and, in the marked block, every signed action), typed events.
 *
 * Importing this module touches no browser global: the key store, the channel between tabs and the
 * event listeners are created or opened on first use.
 *
 * What an app downloads at startup is the session manager, the key store, the transport's client
 * and the crypto core: enough to restore the sessions kept in this browser. What sends a call (the
 * exchange and the signed-retry engine) is loaded at the first call (src/transport/client.ts). The
 * login flows and the signed actions are loaded the first time one of their methods is called, each
 * flow a chunk of its own in the app's bundle (an app that logs in by email code never downloads the
 * passkey code and @simplewebauthn/browser), the actions one chunk. The session's rarer changes and
 * the enclave-bundle crypto are loaded on first use too (src/load-on-first-use.ts). `npm run size`
 * reports every chunk.
 */
import type { TrustedKeys } from './crypto/index.js';
import { invalidArgument } from './errors.js';
import { createKeyStore } from './keys/index.js';
import { loadOnFirstUse } from './load-on-first-use.js';
import { WALLET_CONTEXT, type PasskeyConfig, type WalletContext } from './session/context.js';
import { createSessionManager, type ManagedSessions } from './session/manager.js';
import { createSessionStore } from './session/store.js';
import { createClient } from './transport/index.js';
import type { Wallet, WalletConfig } from './wallet-api.js';
import { unconfiguredWallet } from './wallet-unconfigured.js';

export type { Wallet, WalletConfig, WalletEvents } from './wallet-api.js';

// Each loaded the first time one of its methods is called (src/load-on-first-use.ts).
const otp = loadOnFirstUse(() => import('./flows/otp.js'), 'one-time-code login');
const oauth = loadOnFirstUse(() => import('./flows/oauth.js'), 'OAuth login');
const passkeys = loadOnFirstUse(() => import('./flows/passkey.js'), 'passkey');
const actions = loadOnFirstUse(() => import('./actions/index.js'), 'signed actions');

/** The fields of `value` that are not undefined (an absent option must not be passed as undefined). */
function defined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}

function checkTrustedKeys(value: unknown): TrustedKeys {
  if (value === 'skip-verification') return value;
  if (Array.isArray(value) && value.every((k) => typeof k === 'string' && k !== '')) return [...(value as string[])];
  throw invalidArgument('config.trustedKeys', "an array of enclave public keys (hex) or 'skip-verification'");
}

/**
 * Makes the wallet of this browser. Nothing is opened or requested until the first call; call
 * `restore()` at startup to pick up the sessions kept here. Bad config → `INVALID_ARGUMENT`; a
 * missing `baseUrl` or `trustedKeys` (undefined or empty, an unset environment variable, also inside
 * the array) does not throw here: the wallet fails when used (every call rejects INVALID_ARGUMENT
 * naming it), so a module that makes it at import time still loads.
 *
 * @example
 * ```ts
 * import { createWallet, isWalletError } from 'embedded-wallet-signer';
 *
 * const wallet = createWallet({ baseUrl: '/api', trustedKeys: [ENCLAVE_PUBLIC_KEY_HEX] });
 * wallet.on('expired', () => showLogin());
 * await wallet.restore();
 *
 * const login = await wallet.startOtpLogin({ accountId });   // emails a code
 * await login.verify(codeTheUserTyped);                      // fresh P-256 key, signed retry
 * try {
 *   await wallet.executeQuote(quote);
 * } catch (err) {
 *   if (isWalletError(err, 'SIGNING_REFUSED')) return;
 *   throw err;
 * }
 * ```
 */
export function createWallet(config: WalletConfig): Wallet {
  if (typeof config !== 'object' || config === null) throw invalidArgument('config', 'an object');
  // Frame mode has its own createWallet, which bundles none of the key or session code below.
  if ('signer' in config) throw invalidArgument('config.signer', "absent here: for frame mode import { createWallet, signerFrame } from 'embedded-wallet-signer/frame'");
  // An unset environment variable leaves these undefined or empty: the wallet fails when used, not at import.
  const unset = (v: unknown): boolean => v === undefined || v === '';
  const missing = [unset(config.baseUrl) && 'config.baseUrl', (unset(config.trustedKeys) || (Array.isArray(config.trustedKeys) && config.trustedKeys.some(unset))) && 'config.trustedKeys'].filter((m): m is string => m !== false);
  if (missing.length > 0) return unconfiguredWallet(missing);
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
  const { headers, timeoutMs, signatureHeader, onBeforeSign, onBeforeSignTimeoutMs, automaticSignTimeoutMs, onRequest, refreshWhenRemaining, autoRefresh } = config;
  const client = createClient({
    baseUrl: config.baseUrl,
    fetch: observingFetch,
    ...defined({ headers, timeoutMs, signatureHeader, onBeforeSign, onBeforeSignTimeoutMs, automaticSignTimeoutMs, onRequest }),
  });
  sessions = createSessionManager({
    client,
    keyStore,
    crossTab: config.crossTab !== false,
    ...defined({ refreshWhenRemaining, autoRefresh, namespace: crossTabName }),
  });
  const manager = sessions;
  const store = createSessionStore({ on: (event, listener) => manager.on(event, listener), current: (accountId) => manager.current(accountId) });
  const ctx: WalletContext = { client, sessions: manager, keyStore, trustedKeys, passkey };

  const wallet: Wallet = {
    on: (event, listener) => manager.on(event, listener),
    restore: () => {
      const restoring = manager.restore();
      restoring.then(store.loaded, store.loaded);
      return restoring;
    },
    session: (accountId) => manager.current(accountId),
    sessions: () => manager.all(),
    serverNow: () => manager.serverNow(),
    subscribe: (listener) => store.subscribe(listener),
    getSnapshot: () => store.getSnapshot(),

    startOtpLogin: (args) => otp((m) => m.startOtpLogin(ctx, args)),
    prepareOAuth: (args) => oauth((m) => m.prepareOAuth(ctx, args)),
    completeOAuth: (args) => oauth((m) => m.completeOAuth(ctx, args)),
    preparePasskeyLogin: (args) => passkeys((m) => m.preparePasskeyLogin(ctx, args)),
    preparePasskeyRegistration: (args) => passkeys((m) => m.preparePasskeyRegistration(ctx, args)),
    registerPasskey: (args) => passkeys((m) => m.registerPasskey(ctx, args)),
    addSmsOtp: (args) => otp((m) => m.addOtpCredential(ctx, { ...args, type: 'SMS_OTP' })),
    addEmailOtp: (args) => otp((m) => m.addOtpCredential(ctx, { ...args, type: 'EMAIL_OTP' })),
    addOAuthCredential: (args) => oauth((m) => m.addOAuthCredential(ctx, args)),

    refresh: (accountId) => manager.refresh(accountId),
    logout: (accountId) => manager.logout(accountId),
    listSessions: (accountId) => manager.list(accountId),
    signOutOtherDevices: (accountId) => manager.signOutOtherDevices(accountId),

    // ==== signed actions (src/actions/): wired here by the actions layer ====
    listCredentials: (accountId) => actions((m) => m.listCredentials(ctx, accountId)),
    deleteCredential: (credentialId, accountId) => actions((m) => m.deleteCredential(ctx, credentialId, accountId)),
    createDelegatedKey: (args) => actions((m) => m.createDelegatedKey(ctx, args)),
    listDelegatedKeys: (filter) => actions((m) => m.listDelegatedKeys(ctx, filter)),
    getDelegatedKey: (id) => actions((m) => m.getDelegatedKey(ctx, id)),
    revokeDelegatedKey: (id, accountId) => actions((m) => m.revokeDelegatedKey(ctx, id, accountId)),
    updateAccount: (accountId, patch) => actions((m) => m.updateAccount(ctx, accountId, patch)),
    exportWallet: (accountId) => actions((m) => m.exportWallet(ctx, accountId)),
    createQuote: (args) => actions((m) => m.createQuote(ctx, args)),
    executeQuote: (quoteOrId, options) => actions((m) => m.executeQuote(ctx, quoteOrId, options)),
    changeContact: (customerId, change, options) => actions((m) => m.changeContact(ctx, customerId, change, options)),
    // ==== end of signed actions ====

    dispose: () => manager.dispose(),
    [WALLET_CONTEXT]: ctx,
  };
  return wallet;
}
