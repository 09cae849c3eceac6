/**
 * What the service's answers carry: every field of every answer shape of the embedded-wallet surface,
 * each tagged with where it comes from. THE one list of what the wire reference adds to the spec
 * (`from: 'wire'`): a field of a service answer appears here or the answer is wrong.
 *
 * - `spec`: the spec defines the field (`shared/spec/payments-platform-api.md`, section in `where`).
 * - `wire`: the spec is silent ("not shown") and the wire reference names the field
 *   (`shared/docs/wire-reference.md`, section in `where`).
 * - `optional`: the answer may lack it — the spec or the wire reference says so ("optionally",
 *   "only in the legacy flow", "may be inline", `?`, "some responses carry only…"), or the field is
 *   the wire reference's addition to a record the spec does define (AuthSession, Quote). The
 *   `spec-minimal` profile omits every optional field a client can do without (`keep` marks those
 *   present whenever they apply) and a client must cope (profile.ts). Fields of a table with no
 *   "Required" column are taken as present.
 *
 * The sandbox profile's additions (`sandbox` below) are not part of the contract: they appear only
 * in the `sandbox` profile. `undefinedFields` checks an answer against a shape (used by
 * test/sandbox/contract.test.ts, which walks every route, and by the testing entry's helper).
 */

export interface FieldRule {
  from: 'spec' | 'wire';
  /** Section of the spec (§n) or of the wire reference (wire §n) that names the field. */
  where: string;
  optional?: boolean;
  /** The value is an object of this shape, or an array (`array: true`) of them. */
  shape?: ShapeName;
  array?: boolean;
  /** The value is an object whose fields are open (the spec does not list them): not checked. */
  open?: boolean;
  /** Optional in general, but present whenever it applies (a PASSKEY's credentialId, the legacy key): `spec-minimal` keeps it. */
  keep?: boolean;
}

/** The answer shapes of the contract (each one's fields in `CONTRACT`, src/sandbox/contract.ts). */
export type ShapeName =
  | 'Challenge'
  | 'AuthMethod'
  | 'AuthMethodResponse'
  | 'OtpChallenge'
  | 'PasskeyAuthChallenge'
  | 'AuthSession'
  | 'CredentialList'
  | 'SessionList'
  | 'InternalAccount'
  | 'InternalAccountList'
  | 'Money'
  | 'Currency'
  | 'CurrencyCode'
  | 'FundingInstruction'
  | 'Customer'
  | 'ContactVerification'
  | 'Quote'
  | 'QuoteEnd'
  | 'PaymentInstruction'
  | 'EmbeddedWalletInfo'
  | 'Transaction'
  | 'TransactionEnd'
  | 'TransactionList'
  | 'Export'
  | 'DelegatedKey'
  | 'DelegatedKeyList'
  | 'Card'
  | 'CardList'
  | 'Error'
  | 'FieldError'
  | 'Processing';

type Shape = Readonly<Record<string, FieldRule>>;

const spec = (where: string, more: Partial<FieldRule> = {}): FieldRule => ({ from: 'spec', where, ...more });
const wire = (where: string, more: Partial<FieldRule> = {}): FieldRule => ({ from: 'wire', where, ...more });
const opt = { optional: true } as const;
/** Present whenever it applies (set on the record, or the case it describes): `spec-minimal` keeps it. */
const keep = { optional: true, keep: true } as const;

const AUTH_METHOD: Shape = {
  id: wire('wire §5 AuthMethod'),
  accountId: wire('wire §5 AuthMethod'),
  type: wire('wire §5 AuthMethod; §2.10 credential types'),
  nickname: wire('wire §5 AuthMethod'),
  createdAt: wire('wire §5 AuthMethod'),
  updatedAt: wire('wire §5 AuthMethod'),
  credentialId: wire('wire §5 AuthMethod (PASSKEY only)', { ...opt, keep: true }),
};

const LIST = (item: ShapeName, where: string): Shape => ({
  data: spec(where, { shape: item, array: true }),
  hasMore: spec('§2.1 list response'),
  nextCursor: spec('§2.1 list response', opt),
  totalCount: spec('§2.1 list response'),
});

export const CONTRACT: Readonly<Record<ShapeName, Shape>> = {
  // §2.9; wire §4 adds `type` on the auth endpoints' challenges.
  Challenge: {
    payloadToSign: spec('§2.9'),
    requestId: spec('§2.9'),
    expiresAt: spec('§2.9'),
    type: wire('wire §4 step 1 (auth endpoints)', opt),
  },
  // wire §4: "resend the identical request when a signed-retry endpoint answers 200 {status: PROCESSING}".
  Processing: { status: wire('wire §4 (PROCESSING)') },
  AuthMethod: AUTH_METHOD,
  // wire §5: on the 201 of an added OTP credential "the bundle may be inline".
  AuthMethodResponse: { ...AUTH_METHOD, otpEncryptionTargetBundle: wire('wire §5 AuthMethodResponse', opt) },
  // §4.5: the OTP challenge "returns otpEncryptionTargetBundle".
  OtpChallenge: { ...AUTH_METHOD, otpEncryptionTargetBundle: spec('§4.5 /challenge (EMAIL_OTP, SMS_OTP)') },
  // §2.10: the passkey auth-method fields plus these four.
  PasskeyAuthChallenge: {
    ...AUTH_METHOD,
    credentialId: spec('§2.10 PasskeyAuthChallenge'),
    challenge: spec('§2.10 PasskeyAuthChallenge'),
    requestId: spec('§2.10 PasskeyAuthChallenge'),
    expiresAt: spec('§2.10 PasskeyAuthChallenge'),
  },
  // §2.10 defines expiresAt and encryptedSessionSigningKey; wire §5 gives it the AuthMethod fields
  // with the session's id (the id is needed by DELETE and refresh, §4.5).
  AuthSession: {
    accountId: wire('wire §5 AuthSession', opt),
    type: wire('wire §5 AuthSession', opt),
    nickname: wire('wire §5 AuthSession', opt),
    createdAt: wire('wire §5 AuthSession', opt),
    updatedAt: wire('wire §5 AuthSession', opt),
    credentialId: wire('wire §5 AuthSession (PASSKEY)', opt),
    id: wire('wire §5 AuthSession (id "Session:…"); §4.5 /auth/sessions/{id}'),
    expiresAt: spec('§2.10 AuthSession'),
    encryptedSessionSigningKey: spec('§2.10 AuthSession (legacy flow only)', { ...opt, keep: true }),
  },
  // wire §5: `{data: [...]}`, not paginated (§4.5 "not paginated").
  CredentialList: { data: wire('wire §5 GET /auth/credentials', { shape: 'AuthMethod', array: true }) },
  SessionList: { data: wire('wire §5 GET /auth/sessions', { shape: 'AuthSession', array: true }) },
  InternalAccount: {
    id: spec('§2.6'),
    customerId: spec('§2.6'),
    // §2.6's table has no `type`; its prose says only that "an internal account can be of type
    // EMBEDDED_WALLET", naming no field (issue 34: it was wrongly marked required here). Optional:
    // the service profile sends it (a field a service would plausibly carry), spec-minimal omits it,
    // so a client must tell the wallet by a spec rule (src/testing/client.ts findEmbeddedWallet).
    type: spec('§2.6 prose ("can be of type EMBEDDED_WALLET"; no field named)', opt),
    balance: spec('§2.6', { shape: 'Money' }),
    totalBalance: spec('§2.6', { shape: 'Money' }),
    fundingPaymentInstructions: spec('§2.6', { shape: 'FundingInstruction', array: true }),
    cardCapabilities: spec('§2.6', { open: true }),
    // wire §8.1: the PATCH changes it; the answer is the account.
    privateEnabled: wire('wire §8.1 PATCH /internal-accounts/{id}', opt),
    createdAt: spec('§2.6'),
    updatedAt: spec('§2.6'),
  },
  InternalAccountList: LIST('InternalAccount', '§4.3 GET /internal-account'),
  Money: { amount: spec('§2.6 / §2.4'), currency: spec('§2.1 currency object', { shape: 'Currency' }) },
  // §2.1: "Some responses carry only code and decimals".
  Currency: { code: spec('§2.1'), name: spec('§2.1', opt), symbol: spec('§2.1', opt), decimals: spec('§2.1') },
  CurrencyCode: { accountId: spec('§2.4'), currency: spec('§2.4') },
  FundingInstruction: { accountOrWalletInfo: spec('§2.6', { open: true }), instructionsNotes: spec('§2.6', opt) },
  Customer: {
    id: spec('§2.7'),
    customerType: spec('§2.7'),
    platformCustomerId: spec('§2.7'),
    region: spec('§2.7', keep),
    currencies: spec('§2.7', keep),
    email: spec('§2.7', keep),
    phoneNumber: spec('§2.7', keep),
    fullName: spec('§2.7', keep),
    kycStatus: spec('§2.7', keep),
    contactVerification: spec('§2.7', { ...keep, shape: 'ContactVerification' }),
  },
  ContactVerification: { email: spec('§2.7', opt), phone: spec('§2.7', opt) },
  Quote: {
    id: spec('§2.5'),
    status: spec('§2.5'),
    createdAt: spec('§2.5'),
    expiresAt: spec('§2.5'),
    source: spec('§2.5, §4.3', { shape: 'QuoteEnd' }),
    destination: spec('§2.5, §4.3', { shape: 'QuoteEnd' }),
    sendingCurrency: spec('§2.5', { shape: 'Currency' }),
    receivingCurrency: spec('§2.5', { shape: 'Currency' }),
    totalSendingAmount: spec('§2.5'),
    totalReceivingAmount: spec('§2.5'),
    exchangeRate: spec('§2.5'),
    feesIncluded: spec('§2.5'),
    platformFeesIncluded: spec('§2.5'),
    transactionId: spec('§4.3 GET /quotes/{id}: "includes the transaction id when settled"', opt),
    paymentInstructions: spec('§2.5 (present for an embedded-wallet source)', { ...opt, keep: true, shape: 'PaymentInstruction', array: true }),
    scaChallenge: spec('§2.5 (PENDING_AUTHORIZATION)', { ...opt, keep: true, open: true }),
  },
  QuoteEnd: {
    sourceType: spec('§4.3', opt),
    destinationType: spec('§4.3', opt),
    accountId: spec('§4.3', opt),
    customerId: spec('§4.3', opt),
    currency: spec('§4.3', opt),
  },
  PaymentInstruction: { accountOrWalletInfo: spec('§2.5', { shape: 'EmbeddedWalletInfo' }), instructionsNotes: spec('§2.5', opt) },
  // §2.5 guarantees payloadToSign for an embedded-wallet source; wire §8.3 adds accountType EMBEDDED_WALLET.
  EmbeddedWalletInfo: { payloadToSign: spec('§2.5'), accountType: wire('wire §8.3', opt) },
  Transaction: {
    id: spec('§2.4'),
    status: spec('§2.4'),
    type: spec('§2.4'),
    direction: spec('§2.4', keep),
    source: spec('§2.4', { ...keep, shape: 'CurrencyCode' }),
    destination: spec('§2.4', { ...keep, shape: 'CurrencyCode' }),
    sentAmount: spec('§2.4', { ...keep, shape: 'Money' }),
    receivedAmount: spec('§2.4', { ...keep, shape: 'Money' }),
    customerId: spec('§2.4', keep),
    platformCustomerId: spec('§2.4', keep),
    description: spec('§2.4', keep),
    exchangeRate: spec('§2.4', keep),
    quoteId: spec('§2.4', keep),
    failureReason: spec('§2.4', keep),
    settledAt: spec('§2.4', keep),
    createdAt: spec('§2.4', keep),
  },
  TransactionEnd: { accountId: spec('§2.4'), currency: spec('§2.4') },
  TransactionList: LIST('Transaction', '§4.4'),
  Export: { id: wire('wire §8.6'), encryptedWalletCredentials: wire('wire §8.6') },
  DelegatedKey: {
    id: wire('wire §8.4'),
    cardId: wire('wire §8.4'),
    fundingSourceId: wire('wire §8.4'),
    accountId: wire('wire §8.4'),
    publicKey: wire('wire §8.4'),
    nickname: wire('wire §8.4'),
    status: spec('§2.10, §3.6'),
    createdAt: wire('wire §8.4'),
    updatedAt: wire('wire §8.4'),
  },
  DelegatedKeyList: LIST('DelegatedKey', '§4.5 GET /auth/delegated-keys'),
  CardList: LIST('Card', '§4.6 GET /cards (paginated)'),
  // §4.6 names the card's fields in its bodies (status, fundingSource, the limits); the record itself is "not shown".
  Card: {
    id: wire('wire §1 (Card:<uuid>)'),
    status: spec('§3.4'),
    // Detached when the card is CLOSED (§3.4).
    fundingSource: spec('§4.6', { optional: true, keep: true }),
    statusReason: spec('§3.4 (CLOSED: ISSUER_REJECTED, CLOSED_BY_PLATFORM)', { optional: true, keep: true }),
    // §4.6: the POST body carries "the cardholder" (its name not shown; the sandbox calls it
    // cardholderId) and GET /cards filters by cardholder. The sandbox and service profiles send it.
    // Issue 34: the card record's fields are "not shown" (§2.13) and so is the cardholder's field
    // name; the wire reference names none either. Optional and NOT kept: spec-minimal omits it.
    cardholderId: spec('§4.6 ("the cardholder"; name not shown)', opt),
    maxSpendPerTransaction: spec('§4.6', opt),
    maxSpendPerDay: spec('§4.6', opt),
    maxTransactionsPerDay: spec('§4.6', opt),
  },
  Error: { code: spec('§7'), reason: spec('§7'), details: spec('§7', { ...opt, open: true }) },
  FieldError: { field: spec('§2.13'), constraint: spec('§2.13'), message: spec('§2.13') },
};

/**
 * Fields the `sandbox` profile adds to the contract (explanations for a developer; never in the
 * `service` or `spec-minimal` answers). Listed so that a reader sees all of them in one place.
 */
export const SANDBOX_ADDITIONS: Readonly<Partial<Record<ShapeName, readonly string[]>>> = {
  Error: ['status', 'message', 'details.cause', 'details.attemptsLeft', 'details.requestStatus', 'details.*'],
  AuthSession: ['authMethodId'],
  InternalAccount: ['status', 'nickname'],
  Customer: ['businessLegalName', 'birthDate', 'createdAt', 'updatedAt'],
  Quote: ['lockedCurrencySide', 'lockedCurrencyAmount', 'description'],
  Card: ['currency', 'last4', 'expirationMonth', 'expirationYear', 'createdAt', 'updatedAt'],
};

/** Fields of `body` (dot paths, `[]` for array items) that `shape` does not define. */
export function undefinedFields(shape: ShapeName, body: unknown, path = ''): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [`${path || '(answer)'}: not an object`];
  const rules = CONTRACT[shape];
  const out: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    const at = path === '' ? name : `${path}.${name}`;
    const rule = rules[name];
    if (rule === undefined) {
      out.push(at);
      continue;
    }
    if (rule.shape === undefined || rule.open === true || value === null) continue;
    if (rule.array === true) {
      if (!Array.isArray(value)) out.push(`${at}: not an array`);
      else value.forEach((item, i) => out.push(...undefinedFields(rule.shape as ShapeName, item, `${at}[${i}]`)));
    } else out.push(...undefinedFields(rule.shape, value, at));
  }
  return out;
}

/** Required fields of `shape` that `body` lacks. */
export function missingFields(shape: ShapeName, body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return ['(answer)'];
  return Object.entries(CONTRACT[shape])
    .filter(([name, rule]) => rule.optional !== true && !(name in body))
    .map(([name]) => name);
}

/** `body` with only the fields the `spec-minimal` profile keeps: the required ones of `shape`, nested shapes likewise. */
export function minimalOf(shape: ShapeName, body: Record<string, unknown>): Record<string, unknown> {
  const rules = CONTRACT[shape];
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    const rule = rules[name];
    if (rule === undefined || (rule.optional === true && rule.keep !== true)) continue;
    if (rule.shape !== undefined && rule.open !== true && value !== null && typeof value === 'object') {
      const nested = rule.shape;
      out[name] = Array.isArray(value) ? value.map((v) => (typeof v === 'object' && v !== null ? minimalOf(nested, v as Record<string, unknown>) : v)) : minimalOf(nested, value as Record<string, unknown>);
    } else out[name] = value;
  }
  return out;
}
