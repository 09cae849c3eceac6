/** Generated signed requests of each kind the words module describes, with what the oracle expects to see. */
import fc from 'fast-check';
import { isWalletError } from '../../src/errors.js';
import type { KnownFacts, SignedRequest, WordsKind } from '../../src/signer/words/index.js';

/** Whether `f` throws SIGNING_REFUSED (the words refuse what they cannot describe). */
export const refused = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return isWalletError(error, 'SIGNING_REFUSED');
  }
  return false;
};


export interface Case {
  readonly kind: WordsKind;
  readonly request: SignedRequest;
  readonly facts: KnownFacts;
  /** Values of the request (its path ids and body fields) that a line must show as they are. */
  readonly shown: readonly string[];
}

const id = (prefix: string) => fc.uuid().map((u) => `${prefix}:${u}`);
const text = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '' && !s.includes('{'));
const enc = encodeURIComponent;
const currency = fc.record({ code: fc.stringMatching(/^[A-Z]{3,5}$/), decimals: fc.integer({ min: 0, max: 8 }) });
const amount = fc.integer({ min: 0, max: 2 ** 40 });
const iso = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
export const email = fc.emailAddress();
export const phone = fc.stringMatching(/^\+[1-9][0-9]{7,14}$/);

const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
/** An unsigned-looking JWT with `claims` as its payload (the words read it for display only). */
export const jwt = (claims: unknown, signature = 'c2lnbmF0dXJl') => `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.${signature}`;
/** An issuer (`https://host` or a bare host, as Google's) and its host. */
export const issuer = fc
  .tuple(fc.domain(), fc.boolean())
  .map(([host, bare]) => ({ iss: bare ? host : `https://${host}`, host: new URL(`https://${host}`).host }));
/** Claims an IdP's ID token carries: an issuer, an email and/or a subject. */
export const oauthClaims = fc
  .record({ issuer, email: fc.option(email, { nil: undefined }), sub: fc.option(fc.stringMatching(/^[0-9]{6,21}$/), { nil: undefined }), nonce: fc.stringMatching(/^[0-9a-f]{64}$/) })
  .filter((c) => c.email !== undefined || c.sub !== undefined);

const addCredential = fc
  .record({ type: fc.constantFrom('EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'), accountId: id('InternalAccount'), nickname: text, email, phone, token: text, claims: oauthClaims })
  .map(({ type, accountId, nickname, email: e, phone: p, token, claims }): Case => {
    const body: Record<string, unknown> = { type, accountId };
    if (type === 'PASSKEY') Object.assign(body, { nickname, challenge: token, attestation: { credentialId: token } });
    if (type === 'OAUTH') body.oidcToken = jwt({ iss: claims.issuer.iss, email: claims.email, sub: claims.sub, nonce: claims.nonce, aud: 'client' });
    const shown = type === 'PASSKEY' ? [accountId, nickname] : type === 'OAUTH' ? [accountId, claims.issuer.host, ...(claims.email === undefined ? [claims.sub as string] : [])] : [accountId];
    return { kind: 'add-credential', request: { method: 'POST', path: '/auth/credentials', body }, facts: { customer: { email: e, phoneNumber: p } }, shown };
  });

/** Removing a credential, as the frame listed it or not: its `nickname` is the email, the phone, the OIDC email or the passkey's name (wire reference §3). */
export const removeCredential = fc
  .record({ credentialId: id('AuthMethod'), type: fc.constantFrom('EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'), email, phone, name: text, listed: fc.boolean() })
  .map(({ credentialId, type, email: e, phone: p, name, listed }): Case => {
    const nickname = type === 'SMS_OTP' ? p : type === 'PASSKEY' ? name : e;
    return {
      kind: 'remove-credential',
      request: { method: 'DELETE', path: `/auth/credentials/${enc(credentialId)}` },
      facts: { credential: listed ? { type, nickname } : { type }, customer: { email: e, phoneNumber: p } },
      shown: [credentialId, ...(listed && type === 'PASSKEY' ? [name] : [])],
    };
  });

/** Ending sessions: how many, "all other devices" or not, and (as the frame lists it) the one this request ends. */
export const endSessions = fc
  .record({
    sessionId: id('Session'),
    count: fc.integer({ min: 1, max: 50 }),
    allOtherDevices: fc.boolean(),
    listed: fc.option(fc.record({ type: fc.constantFrom('EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'), email, phone, createdAt: iso, at: fc.nat(49), sameId: fc.boolean() }), { nil: undefined }),
  })
  .map(({ sessionId, count, allOtherDevices, listed }): Case => {
    const index = listed === undefined ? undefined : (listed.at % count) + 1;
    const ending =
      listed === undefined
        ? undefined
        : { id: listed.sameId ? sessionId : `${sessionId}-other`, type: listed.type, nickname: listed.type === 'SMS_OTP' ? listed.phone : listed.email, createdAt: listed.createdAt };
    return {
      kind: 'end-sessions',
      request: { method: 'DELETE', path: `/auth/sessions/${enc(sessionId)}` },
      facts: { sessions: { count, allOtherDevices, ...(ending !== undefined ? { ending, index: index as number } : {}) } },
      shown: [sessionId, String(count)],
    };
  });

const updateAccount = fc
  .record({ accountId: id('InternalAccount'), privateEnabled: fc.boolean(), old: fc.option(fc.boolean(), { nil: undefined }) })
  .map(({ accountId, privateEnabled, old }): Case => ({
    kind: 'update-account',
    request: { method: 'PATCH', path: `/internal-accounts/${enc(accountId)}`, body: { privateEnabled } },
    facts: old === undefined ? {} : { account: { privateEnabled: old } },
    shown: [accountId],
  }));

const exportWallet = fc
  .record({ accountId: id('InternalAccount'), key: fc.stringMatching(/^04[0-9a-f]{128}$/) })
  .map(({ accountId, key }): Case => ({
    kind: 'export',
    request: { method: 'POST', path: `/internal-accounts/${enc(accountId)}/export`, body: { clientPublicKey: key } },
    facts: {},
    shown: [accountId, key.slice(0, 10), key.slice(-6)],
  }));

const createDelegatedKey = fc
  .record({ cardId: id('Card'), internalAccountId: id('InternalAccount'), nickname: text })
  .map((body): Case => ({ kind: 'create-delegated-key', request: { method: 'POST', path: '/auth/delegated-keys', body }, facts: {}, shown: [body.cardId, body.internalAccountId, body.nickname] }));

const revokeDelegatedKey = id('DelegatedKey').map((keyId): Case => ({ kind: 'revoke-delegated-key', request: { method: 'DELETE', path: `/auth/delegated-keys/${enc(keyId)}` }, facts: {}, shown: [keyId] }));

export const quoteCase = fc
  .record({
    quoteId: id('Quote'),
    sendingCurrency: currency,
    receivingCurrency: currency,
    totalSendingAmount: amount,
    totalReceivingAmount: amount,
    exchangeRate: fc.double({ min: 0.0001, max: 100000, noNaN: true }),
    feesIncluded: amount,
    expiresAt: iso,
    source: id('InternalAccount').map((accountId) => ({ sourceType: 'ACCOUNT', accountId })),
    destination: fc.oneof(id('InternalAccount').map((accountId) => ({ destinationType: 'ACCOUNT', accountId })), fc.stringMatching(/^\$[a-z]{1,10}@[a-z]{1,10}\.com$/).map((umaAddress) => ({ destinationType: 'UMA_ADDRESS', umaAddress }))),
  })
  .map(({ quoteId, ...quote }): Case => ({
    kind: 'execute-quote',
    request: { method: 'POST', path: `/quotes/${enc(quoteId)}/execute` },
    facts: { quote: { id: quoteId, status: 'PENDING', ...quote } },
    shown: [quoteId, quote.source.accountId, 'umaAddress' in quote.destination ? quote.destination.umaAddress : quote.destination.accountId],
  }));

const changeContact = fc
  .record({ customerId: id('Customer'), field: fc.constantFrom('email', 'phoneNumber'), email, phone, old: fc.boolean() })
  .map(({ customerId, field, email: e, phone: p, old }): Case => {
    const value = field === 'email' ? e : p;
    return {
      kind: 'change-contact',
      request: { method: 'PATCH', path: `/customers/${enc(customerId)}`, body: { [field]: value } },
      facts: old ? { customer: { email: `old-${e}`, phoneNumber: '+15550000000' } } : {},
      shown: [customerId, value],
    };
  });

export const anyCase: fc.Arbitrary<Case> = fc.oneof(addCredential, removeCredential, endSessions, updateAccount, exportWallet, createDelegatedKey, revokeDelegatedKey, quoteCase, changeContact);
