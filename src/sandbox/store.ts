/**
 * The sandbox's state: one in-memory store, no locks needed.
 *
 * Node runs every handler on one thread, so a handler that checks and then mutates without an
 * `await` in between is atomic. Handlers that must await (signature checks, HPKE) re-check what
 * they depend on after the await and then mutate synchronously. This is the whole concurrency
 * story: keep mutations after the last `await` of a handler.
 *
 * Ids are `<Type>:<uuid>` (wire-reference §1; other shapes in the spec-minimal profile) made by {@link newId}. Times are epoch milliseconds
 * of the sandbox clock; views turn them into ISO strings.
 *
 * Collections for the other resources (quotes, cards, delegated keys, idempotency records) are
 * typed by their route modules through {@link Store.collection}.
 */
import { idFor } from './present.js';

export type CustomerType = 'INDIVIDUAL' | 'BUSINESS';
export type ContactStatus = 'UNVERIFIED' | 'VERIFIED';
export type KycStatus = 'APPROVED' | 'PENDING' | 'REJECTED';

export interface CustomerRecord {
  id: string;
  customerType: CustomerType;
  platformCustomerId: string;
  region?: string;
  currencies: string[];
  email?: string;
  phoneNumber?: string;
  fullName?: string;
  businessLegalName?: string;
  birthDate?: string;
  kycStatus: KycStatus;
  contactVerification: { email: ContactStatus; phone: ContactStatus };
  createdAt: number;
  updatedAt: number;
}

export type InternalAccountType = 'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' | 'EMBEDDED_WALLET';

export interface InternalAccountRecord {
  id: string;
  customerId: string;
  type: InternalAccountType;
  currency: string;
  /** Available balance in the currency's smallest unit. */
  available: number;
  /** Total balance (available + held). */
  total: number;
  privateEnabled: boolean;
  nickname?: string;
  /** Embedded wallets: the wallet's organization id (in payloads and export bundles). */
  organizationId?: string;
  /** Embedded wallets: the entropy of the wallet's BIP-39 mnemonic (the words only ever leave HPKE-sealed by export). */
  mnemonicEntropy?: Uint8Array;
  /** A stable reference used in funding instructions. */
  reference: string;
  createdAt: number;
  updatedAt: number;
}

export type CredentialType = 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY';
export const CREDENTIAL_TYPES: readonly CredentialType[] = ['EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'];

export interface AuthMethodRecord {
  id: string;
  accountId: string;
  type: CredentialType;
  /** The email, the E.164 phone, the OIDC email claim (or sub), or the passkey's name. */
  nickname: string;
  createdAt: number;
  updatedAt: number;
  /** PASSKEY only: base64url rawId. */
  credentialId?: string;
  /** `userHandle`: base64url, pinned by the first assertion that carries one. */
  passkey?: { publicKey: Uint8Array; counter: number; transports?: string[]; userHandle?: string };
  oauth?: { iss: string; sub: string; aud: string };
}

export interface SessionRecord {
  id: string;
  accountId: string;
  authMethodId: string;
  /** Compressed hex of the session signing key. */
  publicKey: string;
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
  /** True when the key was made by the sandbox and sealed to an uncompressed clientPublicKey. */
  legacy: boolean;
}

/** Who may sign a signed-retry leg (see signed-retry.ts). */
export type SignerRule =
  | {
      kind: 'session';
      /** A session on any of these accounts may sign. */
      accountIds: readonly string[];
      /** ...but not a session of this credential (credential deletion). */
      excludeAuthMethodId?: string;
      /** ...and only this session (session refresh: "the current session"). */
      sessionId?: string;
      /** ...and only with this key (third leg of delegated-key creation: "the same key"). */
      publicKey?: string;
    }
  | {
      kind: 'key';
      /** The OTP verify retry: the key bound in the verification token. */
      publicKey: string;
    };

export interface PendingRequest {
  id: string;
  method: string;
  /** Path relative to the base, as matched by the router. */
  path: string;
  /** The first call's body as sent (`''` when none); the retry must send the same bytes. */
  rawBody: string;
  payloadToSign: string;
  signer: SignerRule;
  /** Handler-defined label for multi-leg actions, e.g. `leg2`. */
  stage: string;
  /** Handler-defined data carried from the challenge to the verified retry. */
  context: unknown;
  createdAt: number;
  expiresAt: number;
  used: boolean;
}

export interface OtpIssuance {
  id: string;
  authMethodId: string;
  /** The enclave's HPKE target key for this issuance only. */
  targetKey: CryptoKeyPair;
  targetPublic: Uint8Array;
  issuedAt: number;
  expiresAt: number;
  failedAttempts: number;
  consumed: boolean;
}

export interface PasskeyChallengeRecord {
  requestId: string;
  authMethodId: string;
  accountId: string;
  clientPublicKey: string;
  /** Lowercase hex SHA-256 of the canonical session-creation body. */
  challenge: string;
  expiresAt: number;
  used: boolean;
}

export type TransactionStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

/** A transaction (spec §2.4). Amounts are integers in the smallest unit. */
export interface TransactionRecord {
  id: string;
  status: TransactionStatus;
  type: 'INCOMING' | 'OUTGOING';
  direction: 'CREDIT' | 'DEBIT';
  /** Absent for sandbox funding (money from outside the service). */
  source?: { accountId: string; currency: string };
  destination?: { accountId: string; currency: string };
  sentAmount: { amount: number; currency: string };
  receivedAmount: { amount: number; currency: string };
  customerId: string;
  platformCustomerId: string;
  description?: string;
  exchangeRate?: number;
  quoteId?: string;
  failureReason?: string;
  settledAt?: number;
  createdAt: number;
  /** The internal account whose balance this transaction moved (filter `senderAccountIdentifier`). */
  accountId: string;
}

export function newId(type: string): string {
  return idFor(type);
}

export class Store {
  readonly customers = new Map<string, CustomerRecord>();
  readonly accounts = new Map<string, InternalAccountRecord>();
  readonly authMethods = new Map<string, AuthMethodRecord>();
  readonly sessions = new Map<string, SessionRecord>();
  /** Signed-retry challenges by request id. */
  readonly requests = new Map<string, PendingRequest>();
  /** The latest OTP issuance per credential id (issuing a new one invalidates the old). */
  readonly otpIssuances = new Map<string, OtpIssuance>();
  /** Challenge times per credential id, for the rate limit. */
  readonly challengeTimes = new Map<string, number[]>();
  readonly passkeyChallenges = new Map<string, PasskeyChallengeRecord>();
  /** Transactions in creation order (list newest first by reading it backwards). */
  readonly transactions = new Map<string, TransactionRecord>();
  /**
   * Every key that ever backed a session or received an export (compressed hex → what it was used
   * for). Never pruned: a key is used once (domain/sessions.ts `assertFreshKey`).
   */
  readonly spentKeys = new Map<string, 'session' | 'export'>();
  /** OIDC tokens already used (hex SHA-256 of the token → its `exp` in ms), until they expire. */
  readonly usedOidcTokens = new Map<string, number>();

  private readonly extra = new Map<string, Map<string, unknown>>();

  /**
   * A named collection for records owned by another route module (quotes, cards, delegated keys…).
   * The caller fixes `T`; use one name per record type.
   */
  collection<T>(name: string): Map<string, T> {
    let map = this.extra.get(name);
    if (map === undefined) {
      map = new Map<string, unknown>();
      this.extra.set(name, map);
    }
    return map as Map<string, T>;
  }

  accountsOfCustomer(customerId: string): InternalAccountRecord[] {
    return [...this.accounts.values()].filter((a) => a.customerId === customerId);
  }

  authMethodsOf(accountId: string): AuthMethodRecord[] {
    return [...this.authMethods.values()].filter((m) => m.accountId === accountId);
  }

  /** Sessions of an account that are neither revoked nor expired at `now`. */
  activeSessionsOf(accountId: string, now: number): SessionRecord[] {
    const out: SessionRecord[] = [];
    for (const s of this.sessions.values()) {
      if (s.accountId === accountId && isActive(s, now)) out.push(s);
    }
    return out;
  }

  /**
   * Forgets what can never be used again: challenges and passkey challenges an hour after they
   * expired (until then a replay still gets its precise 401 USED / EXPIRED answer, not a 404),
   * and sessions that are expired or revoked (their ids answer 404 SESSION_NOT_FOUND either way).
   * Called now and then by the server. A request id forgotten this way answers 404
   * REQUEST_NOT_FOUND, as one never issued.
   */
  prune(now: number): void {
    const horizon = now - PRUNE_GRACE_MS;
    for (const [id, r] of this.requests) if (r.expiresAt <= horizon) this.requests.delete(id);
    for (const [id, s] of this.sessions) if (!isActive(s, now)) this.sessions.delete(id);
    for (const [id, c] of this.passkeyChallenges) if (c.expiresAt <= horizon) this.passkeyChallenges.delete(id);
    for (const [hash, exp] of this.usedOidcTokens) if (exp <= now) this.usedOidcTokens.delete(hash);
  }
}

/** How long expired challenges are remembered (see {@link Store.prune}). */
export const PRUNE_GRACE_MS = 60 * 60 * 1000;

export function isActive(session: SessionRecord, now: number): boolean {
  return session.revokedAt === undefined && now < session.expiresAt;
}
