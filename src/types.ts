/**
 * Records the service returns (wire reference §5 and §8, spec §2). Only the fields the library reads
 * or that apps commonly show are named; every record keeps whatever else the service sends.
 */

/** The four credential types of an embedded wallet. */
export type CredentialType = 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY';

export const CREDENTIAL_TYPES: readonly CredentialType[] = ['EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'];

/** Whether a parsed JSON value is an object (every record below is one; arrays and null are not). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A credential of an embedded-wallet account (`AuthMethod:…`). */
export interface AuthMethod {
  id: string;
  accountId: string;
  type: CredentialType;
  /** The email, the E.164 phone, the OIDC email claim, or the passkey's name. */
  nickname: string;
  createdAt: string;
  updatedAt: string;
  /** PASSKEY only: the WebAuthn credential id (base64url rawId). */
  credentialId?: string;
  [field: string]: unknown;
}

/** An AuthMethod as answered by add and OTP challenge: OTP types carry the enclave's target bundle. */
export interface AuthMethodResponse extends AuthMethod {
  otpEncryptionTargetBundle?: string;
}

/** The answer to a passkey challenge: the credential plus what the WebAuthn ceremony signs. */
export interface PasskeyAuthChallenge extends AuthMethod {
  credentialId: string;
  /** Lowercase hex SHA-256 of the canonical session-creation body (binds clientPublicKey). */
  challenge: string;
  requestId: string;
  expiresAt: string;
}

/**
 * A session as the service describes it: the AuthMethod fields of its credential with a `Session:…`
 * id (wire-reference §5), plus its expiry.
 */
export interface AuthSession extends AuthMethod {
  expiresAt: string;
  /** Legacy flow only: the sealed session signing key (base58check). */
  encryptedSessionSigningKey?: string;
}

/** A delegated signing key held by the service for a card funding source. */
export interface DelegatedKey {
  id: string;
  cardId: string;
  fundingSourceId: string;
  accountId: string;
  publicKey: string;
  nickname: string;
  status: 'PENDING' | 'ACTIVE' | 'REVOKED';
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** An internal account (the embedded wallet is `type: "EMBEDDED_WALLET"`). */
export interface InternalAccount {
  /** `InternalAccount:<uuid>`. */
  id: string;
  /** The customer (`Customer:<uuid>`) the account belongs to. */
  customerId: string;
  /** `EMBEDDED_WALLET` for an embedded wallet; other values name the service's other account types. */
  type: 'EMBEDDED_WALLET' | (string & {});
  /** The account's status as the service reports it (e.g. `ACTIVE`). */
  status?: string;
  /** The available balance: an integer amount in the currency's smallest unit. */
  balance?: AccountBalance;
  /** The total balance (available + held), same shape as {@link InternalAccount.balance}. */
  totalBalance?: AccountBalance;
  /** How to fund the account (bank details with a reference, stablecoin wallet details). */
  fundingPaymentInstructions?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  /** What cards funded by this account support. */
  cardCapabilities?: Readonly<Record<string, boolean>>;
  /** Whether the account is private (the field `updateAccount` changes). */
  privateEnabled?: boolean;
  /** A name the platform gave the account. */
  nickname?: string;
  /** ISO 8601 timestamps. */
  createdAt: string;
  updatedAt: string;
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
  id: string;
  status: string;
  expiresAt?: string;
  paymentInstructions?: Array<{ accountOrWalletInfo?: { accountType?: string; payloadToSign?: string; [field: string]: unknown }; [field: string]: unknown }>;
  [field: string]: unknown;
}

/** A customer of the platform. */
export interface Customer {
  id: string;
  platformCustomerId: string;
  email?: string;
  phoneNumber?: string;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** `{ data: [...] }` list answers of the auth endpoints (not paginated). */
export interface DataList<T> {
  data: T[];
}
