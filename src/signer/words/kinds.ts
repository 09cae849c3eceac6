/**
 * One describer per kind of signed request, matched on the request the frame itself is about to
 * send (method, path, JSON body) plus what the frame knows (facts). A describer returns undefined
 * when it cannot put the request in words: a field it does not know, a value of the wrong type, a
 * quote it was not given. Deny by default: the caller then refuses (or shows it as unknown).
 */
import { isRecord } from '../../types.js';
import { formatAmount, formatDate, formatNumber, maskEmail, maskPhone } from './format.js';
import { fill, type StringKey, type Strings } from './strings.js';
import { tokenIdentity } from './token.js';
import type { KnownFacts, Line, SignedRequest, WordsDescription } from './types.js';

export interface Env {
  readonly s: Strings;
  readonly locale: string | undefined;
  readonly timeZone: string | undefined;
}

type Describer = (request: SignedRequest, ids: readonly string[], facts: KnownFacts, env: Env) => WordsDescription | undefined;

interface Route {
  readonly method: string;
  /** Path segments; `*` matches one id (passed to the describer, decoded). */
  readonly path: readonly string[];
  readonly describe: Describer;
}

const CREDENTIAL_TYPES = ['EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'] as const;
type CredentialType = (typeof CREDENTIAL_TYPES)[number];
const isCredentialType = (v: unknown): v is CredentialType => typeof v === 'string' && (CREDENTIAL_TYPES as readonly string[]).includes(v);

const line = (label: string, value: string): Line => ({ label, value });
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** The body's fields, when it is an object holding exactly `required` and some of `optional`; else undefined. */
function fieldsOf(body: unknown, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> | undefined {
  if (!isRecord(body)) return undefined;
  const keys = Object.keys(body);
  if (!required.every((k) => keys.includes(k))) return undefined;
  if (!keys.every((k) => required.includes(k) || optional.includes(k))) return undefined;
  return body;
}

/** The wallet whose session signs, when the caller named it (which wallet the change is made to). */
const signerLine = (facts: KnownFacts, env: Env): Line[] => (nonEmpty(facts.signingAccount) ? [line(env.s.account, facts.signingAccount)] : []);

/** The email or phone of a credential of `type`, partly masked, from what the frame knows of the customer. */
function contactLine(type: string | undefined, facts: KnownFacts, env: Env): Line[] {
  const c = facts.customer;
  if (type === 'EMAIL_OTP' && nonEmpty(c?.email)) return [line(env.s.email, maskEmail(c.email))];
  if (type === 'SMS_OTP' && nonEmpty(c?.phoneNumber)) return [line(env.s.phone, maskPhone(c.phoneNumber))];
  return [];
}

/**
 * The identity an OAuth token names: its issuer's host, and its email or, when it names no email,
 * its subject — in full. Decision (C3): unlike a contact the user typed, this identity comes from a
 * token the parent page handed in, and the user must tell it from their own: masked, an attacker's
 * `a…@gmail.com` looks like `alice@gmail.com`. The frame's screen is on the signer's origin (the
 * parent cannot read it), so the full address reaches only the user.
 */
function identityLines(identity: NonNullable<ReturnType<typeof tokenIdentity>>, env: Env): Line[] {
  const who = identity.email !== undefined ? line(env.s.email, identity.email) : line(env.s.providerAccount, identity.subject as string);
  return [line(env.s.identityProvider, identity.issuer), who];
}

const addCredential: Describer = (request, _ids, facts, env) => {
  const type = isRecord(request.body) ? request.body.type : undefined;
  if (!isCredentialType(type)) return undefined;
  const optional: Record<CredentialType, readonly string[]> = { EMAIL_OTP: [], SMS_OTP: [], OAUTH: ['oidcToken'], PASSKEY: ['nickname', 'challenge', 'attestation'] };
  const body = fieldsOf(request.body, ['type', 'accountId'], optional[type]);
  if (body === undefined || !nonEmpty(body.accountId)) return undefined;
  if (body.nickname !== undefined && typeof body.nickname !== 'string') return undefined;
  // An OAUTH credential is whoever its token names (the token comes from the parent page): shown,
  // and a token that names no one the words can show is not described (security review C3).
  const identity = type === 'OAUTH' ? tokenIdentity(body.oidcToken) : undefined;
  if (type === 'OAUTH' && identity === undefined) return undefined;
  return {
    kind: 'add-credential',
    title: env.s.addCredentialTitle,
    lines: [
      line(env.s.credentialType, env.s[type]),
      ...(identity === undefined ? contactLine(type, facts, env) : identityLines(identity, env)),
      ...(nonEmpty(body.nickname) ? [line(env.s.nickname, body.nickname)] : []),
      line(env.s.account, body.accountId),
    ],
    warnings: [],
  };
};

/**
 * The credential being removed by what the service lists as its `nickname` (wire reference §3: the
 * email, the E.164 phone, the OIDC email claim, or the passkey's name): an email or a phone partly
 * masked, a passkey's name as it is. Without one, the customer's contact for its type (masked).
 */
function listedLines(type: CredentialType | undefined, nickname: string | undefined, facts: KnownFacts, env: Env): Line[] {
  if (!nonEmpty(nickname)) return contactLine(type, facts, env);
  if (type === 'EMAIL_OTP' || (type === 'OAUTH' && nickname.includes('@'))) return [line(env.s.email, maskEmail(nickname))];
  if (type === 'SMS_OTP') return [line(env.s.phone, maskPhone(nickname))];
  // A passkey's name (or an OAUTH credential listed by its subject): the user chose it, or it names no contact.
  return [line(env.s.nickname, nickname)];
}

const removeCredential: Describer = (request, [id], facts, env) => {
  if (request.body !== undefined) return undefined;
  const known = facts.credential;
  const type = isCredentialType(known?.type) ? known.type : undefined;
  return {
    kind: 'remove-credential',
    title: env.s.removeCredentialTitle,
    lines: [
      ...(type !== undefined ? [line(env.s.credentialType, env.s[type])] : []),
      ...listedLines(type, known?.nickname, facts, env),
      line(env.s.credential, id as string),
      ...signerLine(facts, env),
    ],
    warnings: [env.s.removeCredentialWarning],
  };
};

/** The session a request ends, as the service listed it: which sign-in made it (masked), and when. */
function endingLines(id: string, facts: KnownFacts, env: Env): Line[] {
  const ending = facts.sessions?.ending;
  // Only the listed session this very request ends (never another one's facts).
  if (ending === undefined || ending.id !== id) return [];
  const type = isCredentialType(ending.type) ? ending.type : undefined;
  const who = type === 'EMAIL_OTP' && nonEmpty(ending.nickname) ? maskEmail(ending.nickname) : type === 'SMS_OTP' && nonEmpty(ending.nickname) ? maskPhone(ending.nickname) : undefined;
  const on = nonEmpty(ending.createdAt) ? formatDate(ending.createdAt, env.locale, env.timeZone) : undefined;
  return [
    ...(type !== undefined ? [line(env.s.signedInWith, who === undefined ? env.s[type] : `${env.s[type]} (${who})`)] : []),
    ...(on !== undefined ? [line(env.s.signedInOn, on)] : []),
  ];
}

const endSession: Describer = (request, [id], facts, env) => {
  if (request.body !== undefined) return undefined;
  const ending = facts.sessions;
  const count = ending !== undefined && Number.isSafeInteger(ending.count) && ending.count > 0 ? ending.count : 1;
  const many = count > 1 || ending?.allOtherDevices === true;
  const which = ending?.allOtherDevices === true ? env.s.allOtherDevices : env.s.someSessions;
  const index = ending?.index;
  const place = many && index !== undefined && Number.isSafeInteger(index) && index >= 1 && index <= count ? [line(env.s.sessionPlace, fill(env.s.sessionPlaceValue, { index: formatNumber(index, env.locale), count: formatNumber(count, env.locale) }))] : [];
  return {
    kind: 'end-sessions',
    title: many ? env.s.endSessionsTitle : env.s.endSessionTitle,
    lines: [line(env.s.sessions, fill(which, { count: formatNumber(count, env.locale) })), ...place, ...endingLines(id as string, facts, env), line(env.s.session, id as string)],
    warnings: ending?.allOtherDevices === true ? [env.s.endSessionsWarning] : [],
  };
};

const BOOLEAN_FIELDS: Readonly<Record<string, StringKey>> = { privateEnabled: 'privateEnabled' };

// Old → new where known: the frame reads no old value here. The spec's InternalAccount (§2.6) has no
// `privateEnabled`, and its only read is a list by customer (GET /internal-account), so nothing the
// service guarantees says the current setting: the words say "set to" the new one. `facts.account`
// shows old → new for a caller that knows it.
const updateAccount: Describer = (request, [id], facts, env) => {
  const body = fieldsOf(request.body, [], Object.keys(BOOLEAN_FIELDS));
  if (body === undefined || Object.keys(body).length === 0) return undefined;
  const lines: Line[] = [];
  for (const [field, value] of Object.entries(body)) {
    if (typeof value !== 'boolean') return undefined;
    const word = (b: boolean) => (b ? env.s.on : env.s.off);
    const old = facts.account?.[field];
    const shown = typeof old === 'boolean' ? fill(env.s.change, { old: word(old), new: word(value) }) : fill(env.s.setTo, { new: word(value) });
    lines.push(line(env.s[BOOLEAN_FIELDS[field] as StringKey], shown));
  }
  return { kind: 'update-account', title: env.s.updateAccountTitle, lines: [...lines, line(env.s.account, id as string)], warnings: [] };
};

/** A public key shortened for the eye: its first 10 and last 6 characters. */
const shortKey = (hex: string) => (hex.length > 20 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : hex);

const exportWallet: Describer = (request, [id], _facts, env) => {
  const body = fieldsOf(request.body, ['clientPublicKey']);
  if (body === undefined || !nonEmpty(body.clientPublicKey)) return undefined;
  return {
    kind: 'export',
    title: env.s.exportTitle,
    lines: [line(env.s.exportReveals, env.s.exportWhat), line(env.s.account, id as string), line(env.s.exportKey, shortKey(body.clientPublicKey))],
    warnings: [env.s.exportWarning],
  };
};

const createDelegatedKey: Describer = (request, _ids, facts, env) => {
  const body = fieldsOf(request.body, ['cardId', 'internalAccountId', 'nickname']);
  if (body === undefined || !nonEmpty(body.cardId) || !nonEmpty(body.internalAccountId) || !nonEmpty(body.nickname)) return undefined;
  const limits = facts.delegatedKey?.limits;
  return {
    kind: 'create-delegated-key',
    title: env.s.createDelegatedKeyTitle,
    lines: [
      line(env.s.card, body.cardId),
      line(env.s.nickname, body.nickname),
      line(env.s.limits, nonEmpty(limits) ? limits : env.s.limitsNone),
      line(env.s.expiry, env.s.untilRevoked),
      line(env.s.account, body.internalAccountId),
    ],
    warnings: [],
  };
};

const revokeDelegatedKey: Describer = (request, [id], facts, env) => {
  if (request.body !== undefined) return undefined;
  const known = facts.delegatedKey;
  return {
    kind: 'revoke-delegated-key',
    title: env.s.revokeDelegatedKeyTitle,
    lines: [
      ...(nonEmpty(known?.nickname) ? [line(env.s.nickname, known.nickname)] : []),
      ...(nonEmpty(known?.cardId) ? [line(env.s.card, known.cardId)] : []),
      line(env.s.delegatedKey, id as string),
      ...signerLine(facts, env),
    ],
    warnings: [],
  };
};

function currencyOf(value: unknown): { code: string; decimals: number } | undefined {
  if (!isRecord(value) || !nonEmpty(value.code)) return undefined;
  const decimals = value.decimals;
  if (typeof decimals !== 'number' || !Number.isSafeInteger(decimals) || decimals < 0 || decimals > 18) return undefined;
  return { code: value.code, decimals };
}

const isAmount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** An end of a quote as the service names it (spec §2.5, §4.3): an UMA address, else the account id. */
function endOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const field of ['umaAddress', 'accountId', 'address']) if (nonEmpty(value[field])) return value[field] as string;
  return undefined;
}

const executeQuote: Describer = (request, [id], facts, env) => {
  const quote = facts.quote;
  // Only the quote the frame itself fetched for this very id is described.
  if (request.body !== undefined || quote === undefined || quote.id !== id) return undefined;
  const sending = currencyOf(quote.sendingCurrency);
  const receiving = currencyOf(quote.receivingCurrency);
  const destination = endOf(quote.destination);
  // Which account pays (security review S1): the quote's source as the service names it; a quote
  // that names none is not described (the execute is only for a source that is an account).
  const source = endOf(quote.source);
  if (sending === undefined || receiving === undefined || destination === undefined || source === undefined) return undefined;
  if (!isAmount(quote.totalSendingAmount) || !isAmount(quote.totalReceivingAmount)) return undefined;
  const signer = facts.signingAccount;
  if (signer !== undefined && !nonEmpty(signer)) return undefined;
  const lines: Line[] = [
    line(env.s.youSend, formatAmount(quote.totalSendingAmount, sending, env.locale)),
    line(env.s.payFrom, source),
    // A session of another wallet than the paying one signs only when the caller names it: shown.
    ...(signer !== undefined && signer !== source ? [line(env.s.signingWallet, signer)] : []),
    line(env.s.theyReceive, formatAmount(quote.totalReceivingAmount, receiving, env.locale)),
    line(env.s.destination, destination),
  ];
  if (typeof quote.exchangeRate === 'number' && Number.isFinite(quote.exchangeRate)) {
    lines.push(line(env.s.rate, fill(env.s.rateValue, { from: sending.code, rate: formatNumber(quote.exchangeRate, env.locale), to: receiving.code })));
  }
  // Decision: the spec gives fees as integers with no currency; "included" fees are part of what is
  // sent, so they are shown in the sending currency.
  if (isAmount(quote.feesIncluded)) lines.push(line(env.s.fees, formatAmount(quote.feesIncluded, sending, env.locale)));
  if (isAmount(quote.platformFeesIncluded)) lines.push(line(env.s.platformFees, formatAmount(quote.platformFeesIncluded, sending, env.locale)));
  const expires = typeof quote.expiresAt === 'string' ? formatDate(quote.expiresAt, env.locale, env.timeZone) : undefined;
  if (expires !== undefined) lines.push(line(env.s.quoteExpires, expires));
  lines.push(line(env.s.quote, id as string));
  // A key the caller chose makes this a retry: the service replays the payment made under it, if
  // any, instead of paying again (spec §5.2; wire reference §8.3). A fresh key (the default) is no news.
  const key = request.idempotencyKey;
  if (key !== undefined && !nonEmpty(key)) return undefined;
  if (key !== undefined) lines.push(line(env.s.retryKey, key));
  return { kind: 'execute-quote', title: env.s.executeQuoteTitle, lines, warnings: key !== undefined ? [env.s.retryKeyWarning] : [] };
};

const changeContact: Describer = (request, [id], facts, env) => {
  const body = fieldsOf(request.body, [], ['email', 'phoneNumber']);
  const keys = body === undefined ? [] : Object.keys(body);
  if (body === undefined || keys.length !== 1) return undefined;
  const field = keys[0] as 'email' | 'phoneNumber';
  const value = body[field];
  if (!nonEmpty(value)) return undefined;
  // Shown in full: the user must see exactly where their codes will go. The old value is the one
  // the frame read itself (GET /customers/{id}, spec §4.2): a customer read without it had none
  // (only the new); no customer read, the words say the old one is not known.
  const known = facts.customer;
  const old = known?.[field];
  const shown = nonEmpty(old) ? fill(env.s.change, { old, new: value }) : known === undefined ? fill(env.s.change, { old: env.s.unknownValue, new: value }) : fill(env.s.setTo, { new: value });
  return {
    kind: 'change-contact',
    title: env.s.changeContactTitle,
    lines: [line(field === 'email' ? env.s.email : env.s.phone, shown), line(env.s.customer, id as string), ...signerLine(facts, env)],
    // The service asks for a signature only when a sign-in credential is tied to this contact, and
    // then moves it in the same operation (wire reference §8.2): the codes go to the new one.
    warnings: [field === 'email' ? env.s.changeContactEmailWarning : env.s.changeContactPhoneWarning],
  };
};

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: ['auth', 'credentials'], describe: addCredential },
  { method: 'DELETE', path: ['auth', 'credentials', '*'], describe: removeCredential },
  { method: 'DELETE', path: ['auth', 'sessions', '*'], describe: endSession },
  { method: 'PATCH', path: ['internal-accounts', '*'], describe: updateAccount },
  { method: 'POST', path: ['internal-accounts', '*', 'export'], describe: exportWallet },
  { method: 'POST', path: ['auth', 'delegated-keys'], describe: createDelegatedKey },
  { method: 'DELETE', path: ['auth', 'delegated-keys', '*'], describe: revokeDelegatedKey },
  { method: 'POST', path: ['quotes', '*', 'execute'], describe: executeQuote },
  { method: 'PATCH', path: ['customers', '*'], describe: changeContact },
];
