/**
 * embedded-wallet-signer: the public browser API (re-exports only).
 * The deprecated sealed-session-key flow lives in the separate `embedded-wallet-signer/legacy` entry.
 */
// The code descriptions (WALLET_ERROR_CODES, describeWalletError) live in the separate
// `embedded-wallet-signer/error-codes` entry so that they stay out of this bundle.
export { WalletError, isWalletError } from './errors.js';
export type { WalletErrorCode, WalletErrorOptions } from './errors.js';
export * from './crypto/index.js';
// The enclave-bundle functions, as loaders of their chunk (src/enclave-bundles.ts).
export { buildEncryptedOtpBundle, hpkeOpen, hpkeSeal, openExportBundle, verifySignedBundle } from './enclave-bundles.js';

// ---- the wallet: facade, flows, sessions, key store, transport ----
export { createWallet } from './wallet.js';
export type { Wallet, WalletConfig, WalletEvents } from './wallet.js';
export type { SessionOrigin, SessionSnapshot, SessionStatus, SignedOutReason } from './session/store.js';
export type { OtpLogin, OtpType, StartOtpLoginArgs } from './flows/otp.js';
export type { OAuthLogin } from './flows/oauth.js';
export type { PasskeyLogin } from './flows/passkey.js';
export { createSessionManager, signedWithSession, walletContext, WALLET_CONTEXT } from './session/index.js';
export type {
  ChannelLike,
  KeyPlan,
  LockManagerLike,
  LoginTicket,
  LogoutReason,
  ManagedSessions,
  PasskeyConfig,
  Session,
  SessionCallOptions,
  SessionEvents,
  SessionManager,
  SessionManagerOptions,
  SessionHost,
  SessionService,
  SessionSigner,
  ServerClock,
  SignerOptions,
  SigningOptions,
  SigningTicket,
  WalletContext,
} from './session/index.js';
export { CREDENTIAL_TYPES } from './types.js';
export type {
  ChangeContactOptions,
  ContactChange,
  CreateDelegatedKeyArgs,
  CreateQuoteArgs,
  DelegatedKeyFilter,
  ExecuteQuoteOptions,
  InternalAccountPatch,
} from './actions/index.js';
export type {
  AccountBalance,
  AuthMethod,
  AuthMethodResponse,
  AuthSession,
  CredentialType,
  Customer,
  DataList,
  DelegatedKey,
  InternalAccount,
  PasskeyAuthChallenge,
  Quote,
} from './types.js';
export { createKeyStore, createIndexedDbBackend, createMemoryBackend, isStoragePersisted, requestPersistentStorage } from './keys/index.js';
export type {
  FallbackReason,
  GenerateKeyArgs,
  IndexedDbBackendOptions,
  KeyFilter,
  KeyPurpose,
  KeyRecordInput,
  KeyRecordPatch,
  KeyStore,
  KeyStoreBackend,
  KeyStoreOptions,
  KeyStoreStats,
  KeyStoreStatus,
  MetadataStore,
  StoredKey,
} from './keys/index.js';
export { createClient, DEFAULT_SIGNATURE_HEADER } from './transport/index.js';
export type {
  Client,
  ClientOptions,
  HttpMethod,
  OnBeforeSign,
  QueryValue,
  RequestLogEntry,
  RequestOptions,
  SignRequest,
  SignedRequestOptions,
  SignerLike,
} from './transport/index.js';
/** The bootstrap document the app's backend serves (`bootstrapResponse` of `embedded-wallet-signer/proxy`); a type only, no Node types. */
export type { WalletBootstrap } from './types.js';
