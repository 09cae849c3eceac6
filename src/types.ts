/**
 * Records the service returns (wire reference §5 and §8, spec §2). Only the fields the library reads
 * or that apps commonly show are named; every record keeps whatever else the service sends.
 */

/** The four credential types of an embedded wallet. */
export type CredentialType = 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY';

/** Every {@link CredentialType}, in a fixed order (e.g. to validate input or list choices). */
export const CREDENTIAL_TYPES: readonly CredentialType[] = ['EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'];

/** Whether a parsed JSON value is an object (every record below is one; arrays and null are not). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A credential of an embedded-wallet account (`AuthMethod:…`). */
export interface AuthMethod {
  /** `AuthMethod:<uuid>` (a session's is `Session:<uuid>`). */
  id: string;
  /** The embedded-wallet account (`InternalAccount:<uuid>`) the credential belongs to. */
  accountId: string;
  /** Which kind of credential. */
  type: CredentialType;
  /** The email, the E.164 phone, the OIDC email claim, or the passkey's name. */
  nickname: string;
  /** ISO 8601 creation time. */
  createdAt: string;
  /** ISO 8601 time of the last change. */
  updatedAt: string;
  /** PASSKEY only: the WebAuthn credential id (base64url rawId). */
  credentialId?: string;
  /** Any other field the service sends, kept as sent. */
  [field: string]: unknown;
}

/** An AuthMethod as answered by add and OTP challenge: OTP types carry the enclave's target bundle. */
export interface AuthMethodResponse extends AuthMethod {
  /** OTP types: the enclave-signed bundle of the key the OTP code is sealed to. */
  otpEncryptionTargetBundle?: string;
}

/** The answer to a passkey challenge: the credential plus what the WebAuthn ceremony signs. */
export interface PasskeyAuthChallenge extends AuthMethod {
  /** The passkey's WebAuthn credential id (base64url rawId). */
  credentialId: string;
  /** Lowercase hex SHA-256 of the canonical session-creation body (binds clientPublicKey). */
  challenge: string;
  /** The service's id of this challenge, sent back with the assertion. */
  requestId: string;
  /** ISO 8601 time after which the challenge is refused. */
  expiresAt: string;
}

/**
 * A session as the service describes it: the AuthMethod fields of its credential with a `Session:…`
 * id (wire-reference §5), plus its expiry.
 */
export interface AuthSession extends AuthMethod {
  /** ISO 8601 expiry of the session. */
  expiresAt: string;
  /** Legacy flow only: the sealed session signing key (base58check). */
  encryptedSessionSigningKey?: string;
}

/** A delegated signing key held by the service for a card funding source. */
export interface DelegatedKey {
  /** The delegated key's id. */
  id: string;
  /** The card it signs for. */
  cardId: string;
  /** The card's funding source. */
  fundingSourceId: string;
  /** The embedded-wallet account that authorized it. */
  accountId: string;
  /** The key's public key (hex), as the service reports it. */
  publicKey: string;
  /** A name given to the key. */
  nickname: string;
  /** `PENDING` until authorized, `ACTIVE`, or `REVOKED`. */
  status: 'PENDING' | 'ACTIVE' | 'REVOKED';
  /** ISO 8601 creation time. */
  createdAt: string;
  /** ISO 8601 time of the last change. */
  updatedAt: string;
  /** Any other field the service sends, kept as sent. */
  [field: string]: unknown;
}

/** An internal account (the embedded wallet may say `type: "EMBEDDED_WALLET"`; see `type`). */
export interface InternalAccount {
  /** `InternalAccount:<uuid>`. */
  id: string;
  /** The customer (`Customer:<uuid>`) the account belongs to. */
  customerId?: string;
  /**
   * `EMBEDDED_WALLET` for an embedded wallet; other values name the service's other account types.
   * Optional: spec §2.6 names no such field (it says only that an account "can be of type
   * EMBEDDED_WALLET"), so a spec-conformant answer may lack it; the library never reads it.
   */
  type?: 'EMBEDDED_WALLET' | (string & {});
  /** The available balance: an integer amount in the currency's smallest unit. */
  balance?: AccountBalance;
  /** The total balance (available + held), same shape as {@link InternalAccount.balance}. */
  totalBalance?: AccountBalance;
  /** How to fund the account (bank details with a reference, stablecoin wallet details). */
  fundingPaymentInstructions?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  /** What cards funded by this account support. */
  cardCapabilities?: Readonly<Record<string, boolean>>;
  /** Whether the account is private (the field `updateAccount` changes; wire reference §8.1). */
  privateEnabled?: boolean;
  /** ISO 8601 creation time. */
  createdAt?: string;
  /** ISO 8601 time of the last change. */
  updatedAt?: string;
}

/** A balance of an {@link InternalAccount} (spec §2.6). */
export interface AccountBalance {
  /** An integer amount in the currency's smallest unit. */
  amount: number;
  /** The currency, as the service describes it (`code` at least). */
  currency: { code: string } & Readonly<Record<string, unknown>>;
}

/** A quote; a quote funded by an embedded wallet carries the payload its execution signs. */
export interface Quote {
  /** `Quote:<uuid>`. */
  id: string;
  /** The quote's status (e.g. `PENDING`, `PENDING_AUTHORIZATION`, `COMPLETED`). */
  status: string;
  /** ISO 8601 time after which the quote cannot be executed. */
  expiresAt?: string;
  /** How the source is funded; for an embedded wallet, `accountOrWalletInfo.payloadToSign` is what executing signs. */
  paymentInstructions?: Array<{ accountOrWalletInfo?: { accountType?: string; payloadToSign?: string; [field: string]: unknown }; [field: string]: unknown }>;
  /** Any other field the service sends, kept as sent. */
  [field: string]: unknown;
}

/** A customer of the platform. */
export interface Customer {
  /** `Customer:<uuid>`. */
  id: string;
  /** The platform's own id for the customer. */
  platformCustomerId: string;
  /** The customer's email, when known. */
  email?: string;
  /** The customer's phone (E.164), when known. */
  phoneNumber?: string;
  /** ISO 8601 creation time. */
  createdAt: string;
  /** ISO 8601 time of the last change. */
  updatedAt: string;
  /** Any other field the service sends, kept as sent. */
  [field: string]: unknown;
}

/** `{ data: [...] }` list answers of the auth endpoints (not paginated). */
export interface DataList<T> {
  /** The items. */
  data: T[];
}

/**
 * The browser's bootstrap document (served by the backend with `bootstrapResponse` of
 * `embedded-wallet-signer/proxy`). Declared here, with no Node types, so browser code can import it.
 */
export interface WalletBootstrap {
  /**
   * The user's embedded wallet account. Absent with the proxy's email-first login: the login finds
   * it (`startOtpLogin({ email })`), and the document, naming no user, may be served to anyone.
   */
  readonly accountId?: string;
  /** Enclave public keys (uncompressed P-256 hex) the browser trusts for OTP and export bundles. */
  readonly trustedKeys: readonly string[];
  /** Where the proxy is mounted, as the browser reaches it (e.g. `/api`). */
  readonly baseUrl: string;
}
