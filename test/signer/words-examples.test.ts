/** One example of each kind of signed request, in words, as the approval screen shows it (en-US, UTC). */
import { describe, expect, it } from 'vitest';
import { describeSignedRequest, toApprovalLines, type KnownFacts, type SignedRequest } from '../../src/signer/words/index.js';

const en = { locale: 'en-US', timeZone: 'UTC' };
const lines = (request: SignedRequest, facts: KnownFacts = {}, options: object = en) => {
  const d = describeSignedRequest(request, facts, options);
  return { kind: d.kind, title: d.title, lines: d.lines.map((l) => `${l.label}: ${l.value}`), warnings: d.warnings };
};
const customer = { email: 'alice@example.com', phoneNumber: '+15551234567' };
const quote = {
  id: 'Quote:1',
  status: 'PENDING',
  sendingCurrency: { code: 'USD', decimals: 2 },
  receivingCurrency: { code: 'EUR', decimals: 2 },
  totalSendingAmount: 123456,
  totalReceivingAmount: 113000,
  exchangeRate: 0.92,
  feesIncluded: 150,
  platformFeesIncluded: 25,
  expiresAt: '2026-11-28T04:05:00Z',
  source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:payer' },
  destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$bob@pay.example' },
};

describe('each signed action in words', () => {
  it('adding SMS codes: the type and the phone, masked', () => {
    expect(lines({ method: 'POST', path: '/auth/credentials', body: { type: 'SMS_OTP', accountId: 'InternalAccount:a' } }, { customer })).toEqual({
      kind: 'add-credential',
      title: 'Add a sign-in method',
      lines: ['Type: Codes sent by text message', 'Phone: •••• ••67', 'Wallet: InternalAccount:a'],
      warnings: [],
    });
  });

  it('adding a passkey: its name; the attestation is not shown', () => {
    const body = { type: 'PASSKEY', accountId: 'InternalAccount:a', nickname: 'Laptop', challenge: 'c', attestation: { credentialId: 'x' } };
    expect(lines({ method: 'POST', path: '/auth/credentials', body }).lines).toEqual(['Type: Passkey', 'Name: Laptop', 'Wallet: InternalAccount:a']);
  });

  it('removing email codes: the type, the email masked, and that its sessions end', () => {
    expect(lines({ method: 'DELETE', path: '/auth/credentials/AuthMethod%3A7' }, { credential: { type: 'EMAIL_OTP' }, customer })).toEqual({
      kind: 'remove-credential',
      title: 'Remove a sign-in method',
      lines: ['Type: Codes sent by email', 'Email: a•••@example.com', 'Sign-in method: AuthMethod:7'],
      warnings: ['Its sessions end with it.'],
    });
  });

  it('removing a listed credential: its type and its own email or phone, masked; a passkey by its name', () => {
    const path = '/auth/credentials/AuthMethod%3A7';
    const remove = (credential: NonNullable<KnownFacts['credential']>) => lines({ method: 'DELETE', path }, { credential }).lines;
    expect(remove({ type: 'SMS_OTP', nickname: '+15557654321' })).toEqual(['Type: Codes sent by text message', 'Phone: •••• ••21', 'Sign-in method: AuthMethod:7']);
    expect(remove({ type: 'EMAIL_OTP', nickname: 'bob@example.com' })).toEqual(['Type: Codes sent by email', 'Email: b•••@example.com', 'Sign-in method: AuthMethod:7']);
    expect(remove({ type: 'OAUTH', nickname: 'carol@gmail.com' })).toEqual(['Type: Sign-in with an identity provider', 'Email: c•••@gmail.com', 'Sign-in method: AuthMethod:7']);
    expect(remove({ type: 'PASSKEY', nickname: 'Laptop' })).toEqual(['Type: Passkey', 'Name: Laptop', 'Sign-in method: AuthMethod:7']);
  });

  it('signing out the other devices: how many', () => {
    expect(lines({ method: 'DELETE', path: '/auth/sessions/Session%3A9' }, { sessions: { count: 3, allOtherDevices: true } })).toMatchObject({
      title: 'Sign out devices',
      lines: ['Sessions: All other devices (3)', 'Session: Session:9'],
    });
    expect(lines({ method: 'DELETE', path: '/auth/sessions/Session%3A9' }).title).toBe('Sign out a device');
  });

  it('updating the account: old → new where known', () => {
    const request = { method: 'PATCH', path: '/internal-accounts/InternalAccount%3Aa', body: { privateEnabled: true } };
    expect(lines(request, { account: { privateEnabled: false } }).lines).toEqual(['Private mode: Off → On', 'Wallet: InternalAccount:a']);
    expect(lines(request).lines).toEqual(['Private mode: → On', 'Wallet: InternalAccount:a']);
  });

  it('export: what it reveals, that it cannot be undone', () => {
    const key = `04${'ab'.repeat(64)}`;
    expect(lines({ method: 'POST', path: '/internal-accounts/InternalAccount%3Aa/export', body: { clientPublicKey: key } })).toEqual({
      kind: 'export',
      title: 'Reveal your recovery phrase',
      lines: ['Reveals: Your recovery phrase: anyone who sees it can take the funds in this wallet.', 'Wallet: InternalAccount:a', 'Encrypted to: 04abababab…ababab'],
      warnings: ['This cannot be undone: once shown, the phrase stays valid.'],
    });
  });

  it('a delegated key: the card, its limits and expiry', () => {
    const body = { cardId: 'Card:1', internalAccountId: 'InternalAccount:a', nickname: 'Groceries' };
    expect(lines({ method: 'POST', path: '/auth/delegated-keys', body }).lines).toEqual([
      'Card: Card:1',
      'Name: Groceries',
      'Limits: None set by this request: the card can spend what the wallet holds',
      'Valid: Until you revoke it',
      'Wallet: InternalAccount:a',
    ]);
    expect(lines({ method: 'DELETE', path: '/auth/delegated-keys/DelegatedKey%3A2' }, { delegatedKey: { nickname: 'Groceries', cardId: 'Card:1' } }).lines).toEqual([
      'Name: Groceries',
      'Card: Card:1',
      'Card key: DelegatedKey:2',
    ]);
  });

  it('executing a quote: sent, received, to whom, rate, fees, expiry (en-US)', () => {
    expect(lines({ method: 'POST', path: '/quotes/Quote%3A1/execute' }, { quote }).lines).toEqual([
      'You send: USD\u00a01,234.56',
      'From: InternalAccount:payer',
      'They receive: EUR\u00a01,130.00',
      'To: $bob@pay.example',
      'Rate: 1 USD = 0.92 EUR',
      'Fees: USD\u00a01.50',
      'Platform fees: USD\u00a00.25',
      'Offer ends: Nov 28, 2026, 4:05:00 AM UTC',
      'Quote: Quote:1',
    ]);
  });

  it("executing a quote in the user's locale (de-DE), a currency Intl does not know (USDC) as number and code", () => {
    const facts = { quote: { ...quote, sendingCurrency: { code: 'USDC', decimals: 6 }, totalSendingAmount: 1234567 } };
    const shown = lines({ method: 'POST', path: '/quotes/Quote%3A1/execute' }, facts, { locale: 'de-DE', timeZone: 'Europe/Berlin' }).lines;
    expect(shown.slice(0, 3)).toEqual(['You send: 1,234567 USDC', 'From: InternalAccount:payer', 'They receive: 1.130,00\u00a0EUR']);
    expect(shown).toContain('Offer ends: 28.11.2026, 05:05:00 MEZ');
  });

  it('a contact change: old → new, in full', () => {
    expect(lines({ method: 'PATCH', path: '/customers/Customer%3A3', body: { email: 'new@example.com' } }, { customer }).lines).toEqual([
      'Email: alice@example.com → new@example.com',
      'Customer: Customer:3',
    ]);
  });

  it('a contact change whose old value the frame could not read says so; one the customer never had is only the new', () => {
    const request = { method: 'PATCH', path: '/customers/Customer%3A3', body: { email: 'new@example.com' } };
    expect(lines(request).lines[0]).toBe('Email: not known → new@example.com');
    expect(lines(request, { customer: { phoneNumber: '+15551234567' } }).lines[0]).toBe('Email: → new@example.com');
  });

  it('the host may change the language', () => {
    const strings = { updateAccountTitle: 'Modifier votre portefeuille', privateEnabled: 'Mode privé', on: 'Activé', off: 'Désactivé', account: 'Portefeuille', change: '{old} → {new}' };
    const d = describeSignedRequest({ method: 'PATCH', path: '/internal-accounts/A', body: { privateEnabled: true } }, { account: { privateEnabled: false } }, { strings });
    expect(toApprovalLines(d, { strings })).toEqual({ title: 'Modifier votre portefeuille', lines: [['Mode privé', 'Désactivé → Activé'], ['Portefeuille', 'A']] });
  });
});
