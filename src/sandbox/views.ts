/**
 * Records → the public JSON shapes of the spec and wire reference. Nothing secret (mnemonics,
 * passkey public keys, OIDC subjects) ever leaves through a view.
 */
import { currencyView, findCurrency } from './currencies.js';
import type { SandboxProfile } from './profile.js';
import { present } from './present.js';
import type { AuthMethodRecord, CustomerRecord, InternalAccountRecord, SessionRecord, TransactionRecord } from './store.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export function customerView(c: CustomerRecord): Record<string, unknown> {
  return present('Customer', {
    id: c.id,
    customerType: c.customerType,
    platformCustomerId: c.platformCustomerId,
    ...(c.region !== undefined ? { region: c.region } : {}),
    currencies: [...c.currencies],
    ...(c.email !== undefined ? { email: c.email } : {}),
    ...(c.phoneNumber !== undefined ? { phoneNumber: c.phoneNumber } : {}),
    ...(c.fullName !== undefined ? { fullName: c.fullName } : {}),
    ...(c.businessLegalName !== undefined ? { businessLegalName: c.businessLegalName } : {}),
    ...(c.birthDate !== undefined ? { birthDate: c.birthDate } : {}),
    kycStatus: c.kycStatus,
    contactVerification: { ...c.contactVerification },
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  });
}

function fundingInstructions(a: InternalAccountRecord): Record<string, unknown>[] {
  const currency = findCurrency(a.currency);
  if (currency?.crypto || a.type === 'EMBEDDED_WALLET') {
    return [
      {
        accountOrWalletInfo: { accountType: 'SOLANA_WALLET', assetType: a.currency, address: a.reference, reference: a.reference },
        instructionsNotes: 'Sandbox: use POST /sandbox/internal-accounts/{id}/fund instead of sending funds.',
      },
    ];
  }
  return [
    {
      accountOrWalletInfo: {
        accountType: 'US_ACCOUNT',
        accountNumber: a.reference.slice(0, 12),
        routingNumber: '000000000',
        bankName: 'Sandbox Bank',
        accountHolderName: 'Sandbox Payments',
        reference: a.reference,
      },
      instructionsNotes: 'Sandbox: use POST /sandbox/internal-accounts/{id}/fund instead of a transfer.',
    },
  ];
}

export function accountView(a: InternalAccountRecord): Record<string, unknown> {
  const currency = currencyView(a.currency);
  return present('InternalAccount', {
    id: a.id,
    customerId: a.customerId,
    type: a.type,
    status: 'ACTIVE',
    balance: { amount: a.available, currency },
    totalBalance: { amount: a.total, currency },
    fundingPaymentInstructions: fundingInstructions(a),
    cardCapabilities: {
      supportsPanReveal: true,
      supportsSpendLimits: true,
      supportsSpendLimitsAtIssuance: true,
      supportsTransactionCountLimit: true,
    },
    privateEnabled: a.privateEnabled,
    ...(a.nickname !== undefined ? { nickname: a.nickname } : {}),
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
  });
}

/** `AuthMethod` (wire-reference §5). */
export function authMethodView(m: AuthMethodRecord): Record<string, unknown> {
  return present('AuthMethod', authMethodFields(m));
}

function authMethodFields(m: AuthMethodRecord): Record<string, unknown> {
  return {
    id: m.id,
    accountId: m.accountId,
    type: m.type,
    nickname: m.nickname,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
    ...(m.credentialId !== undefined ? { credentialId: m.credentialId } : {}),
  };
}

/**
 * `AuthSession`: the credential's AuthMethod fields with the session's id, plus `expiresAt` and, in
 * the legacy flow only, `encryptedSessionSigningKey`. The `sandbox` profile adds `authMethodId`
 * (which credential the session belongs to); the service does not send it.
 */
export function sessionView(profile: SandboxProfile, s: SessionRecord, m: AuthMethodRecord, encryptedSessionSigningKey?: string): Record<string, unknown> {
  return present('AuthSession', {
    ...authMethodFields(m),
    id: s.id,
    accountId: s.accountId,
    ...(profile === 'sandbox' ? { authMethodId: m.id } : {}),
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.createdAt),
    expiresAt: iso(s.expiresAt),
    ...(encryptedSessionSigningKey !== undefined ? { encryptedSessionSigningKey } : {}),
  });
}

/** An AuthMethod plus the fields of an answer of `shape` (AuthMethodResponse, OtpChallenge, PasskeyAuthChallenge). */
export function authMethodAnswer(shape: 'AuthMethodResponse' | 'OtpChallenge' | 'PasskeyAuthChallenge', m: AuthMethodRecord, extra: Record<string, unknown>): Record<string, unknown> {
  return present(shape, { ...authMethodFields(m), ...extra });
}

/** `Transaction` (spec §2.4). */
export function transactionView(t: TransactionRecord): Record<string, unknown> {
  return present('Transaction', {
    id: t.id,
    status: t.status,
    type: t.type,
    direction: t.direction,
    ...(t.source !== undefined ? { source: { ...t.source } } : {}),
    ...(t.destination !== undefined ? { destination: { ...t.destination } } : {}),
    sentAmount: { amount: t.sentAmount.amount, currency: currencyView(t.sentAmount.currency) },
    receivedAmount: { amount: t.receivedAmount.amount, currency: currencyView(t.receivedAmount.currency) },
    customerId: t.customerId,
    platformCustomerId: t.platformCustomerId,
    ...(t.description !== undefined ? { description: t.description } : {}),
    ...(t.exchangeRate !== undefined ? { exchangeRate: t.exchangeRate } : {}),
    ...(t.quoteId !== undefined ? { quoteId: t.quoteId } : {}),
    ...(t.failureReason !== undefined ? { failureReason: t.failureReason } : {}),
    ...(t.settledAt !== undefined ? { settledAt: iso(t.settledAt) } : {}),
    createdAt: iso(t.createdAt),
  });
}
