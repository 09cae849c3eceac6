/**
 * What a signed action changes, in its words: whom an OAuth token names (security review C3), which
 * account pays a quote, the wallet that signs it and a retry's Idempotency-Key (S1); the wallet a
 * removal, a revocation or a contact change is signed with, and that a contact change moves the
 * sign-in codes (S5). Each case is generated where it can be; the oracle is the request and the facts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STRINGS, describeSignedRequest, type WordsDescription } from '../../src/signer/words/index.js';
import { DESCRIBE } from '../../src/signer/frame/describe.js';
import { inWords } from '../../src/signer/frame/words-hookup.js';
import { oauthClaims, jwt, quoteCase, refused } from './words-arbitraries.js';

const value = (d: WordsDescription, label: string) => d.lines.find((l) => l.label === label)?.value;
const addOAuth = (oidcToken: unknown) => ({ method: 'POST', path: '/auth/credentials', body: { type: 'OAUTH', accountId: 'InternalAccount:a', oidcToken } });

describe('adding an OAUTH credential shows whom its token names (C3)', () => {
  it('a token naming attacker@evil.example: the issuer and that identity in full (masked, a look-alike of the user’s own would pass)', () => {
    const token = jwt({ iss: 'https://accounts.google.com', email: 'attacker@evil.example', sub: '4242', nonce: 'n', aud: 'app' });
    const d = describeSignedRequest(addOAuth(token), { customer: { email: 'alice@example.com' } });
    expect(value(d, DEFAULT_STRINGS.identityProvider)).toBe('accounts.google.com');
    expect(value(d, DEFAULT_STRINGS.email)).toBe('attacker@evil.example');
    // The customer's own email is not what the token adds: not shown for it.
    expect(JSON.stringify(d)).not.toContain('example.com');
    // Through the frame's hookup, as the frame's addOAuthCredential asks.
    const lines = inWords.addOAuth({ accountId: 'InternalAccount:a', oidcToken: token })?.lines;
    expect(lines).toContainEqual(['Email', 'attacker@evil.example']);
    expect(lines).toContainEqual(['Identity provider', 'accounts.google.com']);
  });

  it('generated tokens: the issuer as a host, the email or else the subject, in full; never the token', () => {
    fc.assert(
      fc.property(oauthClaims, (c) => {
        const token = jwt({ iss: c.issuer.iss, email: c.email, sub: c.sub, nonce: c.nonce });
        const d = describeSignedRequest(addOAuth(token));
        expect(value(d, DEFAULT_STRINGS.identityProvider)).toBe(c.issuer.host);
        if (c.email !== undefined) {
          expect(value(d, DEFAULT_STRINGS.email)).toBe(c.email);
          expect(value(d, DEFAULT_STRINGS.providerAccount)).toBeUndefined();
        } else expect(value(d, DEFAULT_STRINGS.providerAccount)).toBe(c.sub);
        expect(JSON.stringify(d)).not.toContain(c.nonce);
      }),
    );
  });

  it('a token that names no issuer, or no one, or is not a JWT: not described (and the frame refuses the call)', () => {
    const cases = [
      jwt({ email: 'a@b.example' }),
      jwt({ iss: 'https://accounts.google.com' }),
      jwt({ iss: 'javascript:alert(1)', email: 'a@b.example' }),
      jwt(['not', 'an', 'object']),
      'not-a-jwt',
      'a.!!!.c',
      undefined,
      42,
    ];
    for (const token of cases) {
      expect(refused(() => describeSignedRequest(addOAuth(token)))).toBe(true);
      expect(inWords.addOAuth({ accountId: 'InternalAccount:a', oidcToken: token })).toBeUndefined();
    }
  });
});

describe('executing a quote: which account pays, which wallet signs, a retry (S1)', () => {
  it('the source account as the quote names it, before what they receive', () => {
    fc.assert(
      fc.property(quoteCase, (c) => {
        const d = describeSignedRequest(c.request, c.facts, { locale: 'en-US' });
        const source = (c.facts.quote as { source: { accountId: string } }).source.accountId;
        expect(value(d, DEFAULT_STRINGS.payFrom)).toBe(source);
        expect(value(d, DEFAULT_STRINGS.signingWallet)).toBeUndefined();
        expect(value(d, DEFAULT_STRINGS.retryKey)).toBeUndefined();
        expect(d.warnings).toEqual([]);
        // A quote that names no source is not described.
        const { source: _gone, ...without } = c.facts.quote as Record<string, unknown>;
        expect(refused(() => describeSignedRequest(c.request, { quote: without }))).toBe(true);
      }),
    );
  });

  it("the caller's Idempotency-Key (a retry: paid at most once under it) and a signing wallet other than the source", () => {
    const key = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);
    fc.assert(
      fc.property(quoteCase, key, fc.option(fc.uuid(), { nil: undefined }), (c, idempotencyKey, other) => {
        const source = (c.facts.quote as { source: { accountId: string } }).source.accountId;
        const signingAccount = other === undefined ? source : `InternalAccount:${other}`;
        const d = describeSignedRequest({ ...c.request, idempotencyKey }, { ...c.facts, signingAccount });
        expect(value(d, DEFAULT_STRINGS.retryKey)).toBe(idempotencyKey);
        expect(d.warnings).toEqual([DEFAULT_STRINGS.retryKeyWarning]);
        expect(value(d, DEFAULT_STRINGS.signingWallet)).toBe(other === undefined ? undefined : signingAccount);
      }),
    );
  });

  it("through the frame's hookup: the call's options as the action reads them", () => {
    const quote = {
      id: 'Quote:1',
      source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:payer' },
      destination: { destinationType: 'ACCOUNT', accountId: 'InternalAccount:payee' },
      sendingCurrency: { code: 'USD', decimals: 2 },
      receivingCurrency: { code: 'USD', decimals: 2 },
      totalSendingAmount: 1_000,
      totalReceivingAmount: 1_000,
    };
    const plain = Object.fromEntries(inWords.executeQuote('Quote:1', quote)?.lines ?? []);
    expect(plain.From).toBe('InternalAccount:payer');
    const retry = inWords.executeQuote('Quote:1', quote, { idempotencyKey: 'pay-7', accountId: 'InternalAccount:other' });
    expect(retry?.lines).toContainEqual(['Retry key', 'pay-7']);
    expect(retry?.lines).toContainEqual(['Signed with wallet', 'InternalAccount:other']);
    expect(retry?.lines).toContainEqual(['Note', DEFAULT_STRINGS.retryKeyWarning]);
    // Options the action would refuse (INVALID_ARGUMENT before signing) are not in words.
    expect(inWords.executeQuote('Quote:1', quote, { idempotencyKey: 7 })).toBeUndefined();
    expect(inWords.executeQuote('Quote:1', quote, 'pay-7')).toBeUndefined();
    expect(DESCRIBE.executeQuote).toBeDefined();
  });
});

describe('what else the frame knows of a request (S5)', () => {
  const account = fc.uuid().map((u) => `InternalAccount:${u}`);
  it('the wallet a removal, a revocation or a contact change is signed with, when the call names it', () => {
    fc.assert(
      fc.property(fc.uuid(), account, fc.boolean(), (id, accountId, named) => {
        const wallet = named ? accountId : undefined;
        const removal = DESCRIBE.deleteCredential?.([`AuthMethod:${id}`, wallet]);
        const revocation = DESCRIBE.revokeDelegatedKey?.([`DelegatedKey:${id}`, wallet]);
        const contact = DESCRIBE.changeContact?.([`Customer:${id}`, { email: 'new@example.com' }, named ? { accountId } : undefined]);
        for (const d of [removal, revocation, contact]) {
          const shown = d?.lines.find(([label]) => label === DEFAULT_STRINGS.account)?.[1];
          expect(shown).toBe(wallet);
        }
        expect(removal?.title).toBe(DEFAULT_STRINGS.removeCredentialTitle);
        expect(revocation?.title).toBe(DEFAULT_STRINGS.revokeDelegatedKeyTitle);
        expect(contact?.title).toBe(DEFAULT_STRINGS.changeContactTitle);
      }),
    );
  });

  it('a contact change says that the sign-in codes go to the new email or phone', () => {
    const email = describeSignedRequest({ method: 'PATCH', path: '/customers/C', body: { email: 'new@example.com' } });
    const phone = describeSignedRequest({ method: 'PATCH', path: '/customers/C', body: { phoneNumber: '+15551234567' } });
    expect(email.warnings).toEqual([DEFAULT_STRINGS.changeContactEmailWarning]);
    expect(phone.warnings).toEqual([DEFAULT_STRINGS.changeContactPhoneWarning]);
  });
});
