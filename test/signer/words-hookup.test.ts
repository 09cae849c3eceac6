/** The frame's approval descriptions of the actions it can build the request for are the words module's. */
import { describe, expect, it } from 'vitest';
import { DESCRIBE } from '../../src/signer/frame/describe.js';
import { inWords, inWordsWith } from '../../src/signer/frame/words-hookup.js';
import { DEFAULT_STRINGS } from '../../src/signer/words/strings.js';

describe('the frame describes its user actions in words', () => {
  it('each action whose request the frame builds from its arguments', () => {
    expect(DESCRIBE.updateAccount?.(['InternalAccount:a', { privateEnabled: true }])).toEqual({ title: 'Change your wallet settings', lines: [['Private mode', '→ On'], ['Wallet', 'InternalAccount:a']] });
    expect(DESCRIBE.deleteCredential?.(['AuthMethod:1'])?.title).toBe('Remove a sign-in method');
    expect(DESCRIBE.createDelegatedKey?.([{ cardId: 'Card:1', internalAccountId: 'InternalAccount:a', nickname: 'Groceries' }])?.lines).toContainEqual(['Valid', 'Until you revoke it']);
    expect(DESCRIBE.revokeDelegatedKey?.(['DelegatedKey:2'])?.lines).toEqual([['Card key', 'DelegatedKey:2']]);
    expect(DESCRIBE.changeContact?.(['Customer:3', { phoneNumber: '+15551234567' }])?.lines).toEqual([
      ['Phone', 'not known → +15551234567'],
      ['Customer', 'Customer:3'],
      ['Note', 'Your sign-in codes by text message go to the new number from now on.'],
    ]);
  });

  it('removing a credential: the one the frame listed under this id names its type and masked contact; another id\'s never', () => {
    const listed = [
      { id: 'AuthMethod:1', type: 'SMS_OTP', nickname: '+15557654321' },
      { id: 'AuthMethod:2', type: 'EMAIL_OTP', nickname: 'bob@example.com' },
    ];
    expect(inWords.deleteCredential('AuthMethod:1', 'InternalAccount:a', listed)?.lines).toEqual([
      ['Type', 'Codes sent by text message'],
      ['Phone', '•••• ••21'],
      ['Sign-in method', 'AuthMethod:1'],
      ['Wallet', 'InternalAccount:a'],
      ['Note', 'Its sessions end with it.'],
    ]);
    expect(inWords.deleteCredential('AuthMethod:3', undefined, listed)?.lines.map((l) => l[0])).toEqual(['Sign-in method', 'Note']);
  });

  it('a contact change: old → new from the customer the frame read; not read, the old is "not known"', () => {
    expect(inWords.changeContact('Customer:3', { email: 'new@example.com' }, undefined, { email: 'old@example.com' })?.lines[0]).toEqual(['Email', 'old@example.com → new@example.com']);
    expect(inWords.changeContact('Customer:3', { email: 'new@example.com' })?.lines[0]).toEqual(['Email', 'not known → new@example.com']);
  });

  it('arguments no action would send keep the plain description (the action refuses them before signing)', () => {
    expect(DESCRIBE.updateAccount?.(['InternalAccount:a', { nickname: 'x' }])?.title).toBe(DEFAULT_STRINGS.updateAccountTitle);
    expect(DESCRIBE.changeContact?.(['Customer:3', { email: 'a@b.c', phoneNumber: '+1555' }])?.lines).toContainEqual(['email', 'a@b.c']);
  });
});

describe('adding an OTP credential and executing a quote, in words', () => {
  it('adding SMS or email codes: the request the action sends ({ type, accountId })', () => {
    expect(DESCRIBE.addSmsOtp?.([{ accountId: 'InternalAccount:a' }])).toEqual({
      title: 'Add a sign-in method',
      lines: [
        ['Type', 'Codes sent by text message'],
        ['Wallet', 'InternalAccount:a'],
      ],
    });
    expect(DESCRIBE.addEmailOtp?.([{ accountId: 'InternalAccount:a' }])?.lines).toContainEqual(['Type', 'Codes sent by email']);
    // No account: the action refuses it before signing; the plain description stays.
    expect(DESCRIBE.addSmsOtp?.([{}])?.title).toBe('Add SMS codes as a sign-in method');
  });

  it('a quote the frame read: amounts, destination, rate, fees, expiry; another quote or a broken one is not in words', () => {
    const quote = {
      id: 'Quote:1',
      sendingCurrency: { code: 'USD', decimals: 2 },
      receivingCurrency: { code: 'EUR', decimals: 2 },
      totalSendingAmount: 10_050,
      totalReceivingAmount: 9_000,
      exchangeRate: 0.9,
      feesIncluded: 50,
      source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:payer' },
      destination: { umaAddress: '$bob@example.com' },
      expiresAt: '2026-11-28T07:00:00Z',
    };
    const described = inWords.executeQuote('Quote:1', quote);
    expect(described?.title).toBe('Send a payment');
    const lines = Object.fromEntries(described?.lines ?? []);
    expect(lines['You send']).toMatch(/100\.50/);
    expect(lines['You send']).toMatch(/USD/);
    expect(lines['They receive']).toMatch(/90\.00/);
    expect(lines.To).toBe('$bob@example.com');
    expect(lines.Rate).toMatch(/^1 USD = 0[.,]9 EUR$/);
    expect(lines.Fees).toMatch(/0\.50/);
    expect(lines['Offer ends']).toBeDefined();
    expect(lines.Quote).toBe('Quote:1');
    expect(inWords.executeQuote('Quote:2', quote)).toBeUndefined();
    expect(inWords.executeQuote('Quote:1', { ...quote, totalSendingAmount: -1 })).toBeUndefined();
    expect(inWords.executeQuote('Quote:1', 'Quote:1')).toBeUndefined();
  });
});

describe('a quote the words cannot read: "Unknown action" only where the host allows it', () => {
  // The service names the destination in a way the words do not know (not an UMA address, account or address).
  const odd = {
    id: 'Quote:9',
    sendingCurrency: { code: 'USD', decimals: 2 },
    receivingCurrency: { code: 'USD', decimals: 2 },
    totalSendingAmount: 100,
    totalReceivingAmount: 100,
    source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:payer' },
    destination: { destinationType: 'SOMEWHERE' },
  };
  it('not allowed (the default): no words (methods.ts refuses the signature)', () => {
    expect(inWords.executeQuote('Quote:9', odd)).toBeUndefined();
    expect(inWordsWith({ allowUnknown: false }).executeQuote('Quote:9', odd)).toBeUndefined();
  });
  it('allowed: "Unknown action", the request, the warning and the raw request', () => {
    const shown = inWordsWith({ allowUnknown: true }).executeQuote('Quote:9', odd, { idempotencyKey: 'k-1' });
    expect(shown?.title).toBe('Unknown action');
    expect(shown?.lines[0]).toEqual(['Request', 'POST /quotes/Quote%3A9/execute']);
    expect(shown?.lines.map(([label]) => label)).toEqual(['Request', 'Note', 'Body']);
    expect(JSON.parse(shown?.lines[2]?.[1] ?? '')).toEqual({ method: 'POST', path: '/quotes/Quote%3A9/execute' });
  });
});

describe('signing out other devices, in words per request', () => {
  const others = [
    { id: 'Session:a', type: 'EMAIL_OTP', nickname: 'friend@example.com', createdAt: '2026-11-01T10:00:00Z' },
    { id: 'Session:b', type: 'PASSKEY', nickname: 'Laptop', createdAt: '2026-11-02T10:00:00Z' },
  ];
  it('how many, which one (from the request\'s own path), its sign-in masked; a session the frame did not list shows only its id', () => {
    const b = inWords.endSession('DELETE', '/auth/sessions/Session%3Ab', others);
    expect(b?.title).toBe('Sign out devices');
    expect(b?.lines).toEqual(expect.arrayContaining([['Sessions', 'All other devices (2)'], ['Device', '2 of 2'], ['Signed in with', 'Passkey'], ['Session', 'Session:b']]));
    const a = inWords.endSession('DELETE', '/auth/sessions/Session%3Aa', others);
    expect(a?.lines).toContainEqual(['Signed in with', 'Codes sent by email (f•••@example.com)']);
    expect(JSON.stringify(a)).not.toContain('friend@');
    const unlisted = inWords.endSession('DELETE', '/auth/sessions/Session%3Az', others);
    expect(unlisted?.lines.map((l) => l[0])).toEqual(['Sessions', 'Session', 'Note']);
    // Not a session's end: no words (the scope's plain description stays).
    expect(inWords.endSession('PATCH', '/internal-accounts/x', others)).toBeUndefined();
  });
});
