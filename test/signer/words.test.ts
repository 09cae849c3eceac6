/**
 * The words module against an oracle: every value of a signed request appears in its description,
 * masking shows no more than it may, what it cannot describe is refused unless the host allows it,
 * and the host's strings replace every word.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STRINGS, describeSignedRequest, maskEmail, maskPhone, toApprovalLines, type KnownFacts, type WordsDescription } from '../../src/signer/words/index.js';
import { anyCase, email, endSessions, jwt, phone, quoteCase, refused, removeCredential } from './words-arbitraries.js';

interface QuoteShape {
  sendingCurrency: { code: string; decimals: number };
  receivingCurrency: { code: string; decimals: number };
  totalSendingAmount: number;
  totalReceivingAmount: number;
  feesIncluded: number;
  expiresAt: string;
}

const all = (d: WordsDescription) => [d.title, ...d.lines.flatMap((l) => [l.label, l.value]), ...d.warnings].join('\n');

describe('describeSignedRequest (generated requests of each kind)', () => {
  it('names the kind and shows every value of the request', () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const d = describeSignedRequest(c.request, c.facts, { locale: 'en-US' });
        expect(d.kind).toBe(c.kind);
        expect(d.raw).toBeUndefined();
        const values = d.lines.map((l) => l.value).join('\n');
        for (const v of c.shown) expect(values).toContain(v);
      }),
    );
  });

  it('shows the amounts of a quote exactly (every digit, in smallest units), its fees, rate and expiry', () => {
    fc.assert(
      fc.property(quoteCase, (c) => {
        const q = c.facts.quote as unknown as QuoteShape;
        const d = describeSignedRequest(c.request, c.facts, { locale: 'en-US', timeZone: 'UTC' });
        const digits = (label: string) => d.lines.find((l) => l.label === label)?.value.replace(/[^0-9]/g, '');
        const units = (n: number, decimals: number) => String(n).padStart(decimals + 1, '0');
        expect(digits(DEFAULT_STRINGS.youSend)).toBe(units(q.totalSendingAmount, q.sendingCurrency.decimals));
        expect(digits(DEFAULT_STRINGS.theyReceive)).toBe(units(q.totalReceivingAmount, q.receivingCurrency.decimals));
        expect(digits(DEFAULT_STRINGS.fees)).toBe(units(q.feesIncluded, q.sendingCurrency.decimals));
        expect(d.lines.find((l) => l.label === DEFAULT_STRINGS.youSend)?.value).toContain(q.sendingCurrency.code);
        expect(d.lines.find((l) => l.label === DEFAULT_STRINGS.rate)?.value).toContain(q.receivingCurrency.code);
        expect(d.lines.find((l) => l.label === DEFAULT_STRINGS.quoteExpires)?.value).toContain(String(new Date(q.expiresAt).getUTCFullYear()));
      }),
    );
  });

  it('never describes a quote other than the one the frame fetched for that id', () => {
    fc.assert(
      fc.property(quoteCase, fc.uuid(), (c, other) => {
        const facts = { quote: { ...c.facts.quote, id: `Quote:${other}` } };
        expect(refused(() => describeSignedRequest(c.request, facts))).toBe(true);
        expect(refused(() => describeSignedRequest(c.request, {}))).toBe(true);
      }),
    );
  });

  it('refuses a known request with a field it does not know, or a body it does not expect', () => {
    fc.assert(
      fc.property(anyCase, fc.stringMatching(/^[a-z]{3,12}$/), (c, field) => {
        const body = c.request.body === undefined ? { [field]: 1 } : { ...(c.request.body as object), [`x${field}`]: 1 };
        expect(refused(() => describeSignedRequest({ ...c.request, body }, c.facts))).toBe(true);
      }),
    );
  });

  it('refuses what matches no kind, and shows it as unknown with its raw request only when allowed', () => {
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE');
    const segment = fc.oneof(fc.constantFrom('auth', 'sessions', 'credentials', 'quotes', 'execute', 'customers', 'internal-accounts', 'export', 'delegated-keys', 'refresh'), fc.uuid());
    const request = fc.record({ method, path: fc.array(segment, { minLength: 0, maxLength: 5 }).map((s) => `/${s.join('/')}`), body: fc.option(fc.jsonValue(), { nil: undefined }) });
    fc.assert(
      fc.property(request, (r) => {
        let known = true;
        try {
          describeSignedRequest(r);
        } catch {
          known = false;
        }
        if (known) return; // some generated requests are well-formed ones of a kind
        expect(refused(() => describeSignedRequest(r))).toBe(true);
        expect(refused(() => describeSignedRequest(r, {}, { allowUnknown: false }))).toBe(true);
        const d = describeSignedRequest(r, {}, { allowUnknown: true });
        expect(d.kind).toBe('unknown');
        expect(d.title).toBe(DEFAULT_STRINGS.unknownTitle);
        expect(JSON.parse(d.raw as string)).toEqual(JSON.parse(JSON.stringify({ method: r.method, path: r.path, ...(r.body !== undefined ? { body: r.body } : {}) })));
        expect(toApprovalLines(d).lines.at(-1)).toEqual([DEFAULT_STRINGS.body, d.raw]);
      }),
    );
  });

  it("uses the host's strings for every title, label and warning", () => {
    const overrides = Object.fromEntries(Object.keys(DEFAULT_STRINGS).map((k) => [k, `«${k}»`]));
    const mine = new Set(Object.values(overrides));
    fc.assert(
      fc.property(anyCase, (c) => {
        const d = describeSignedRequest(c.request, c.facts, { strings: overrides });
        expect(mine.has(d.title)).toBe(true);
        for (const l of d.lines) expect(mine.has(l.label)).toBe(true);
        for (const w of d.warnings) expect(mine.has(w)).toBe(true);
        for (const [label] of toApprovalLines(d, { strings: overrides }).lines) expect(mine.has(label)).toBe(true);
        const text = all(d);
        for (const word of Object.values(DEFAULT_STRINGS)) if (word.length > 12 && !word.includes('{')) expect(text).not.toContain(word);
      }),
    );
  });
});

describe('what the words never show', () => {
  it("an OAuth token or a passkey's challenge and attestation: not in any line", () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9_-]{16,40}$/);
    fc.assert(
      fc.property(fc.constantFrom('OAUTH', 'PASSKEY'), secret, (type, token) => {
        const oidcToken = jwt({ iss: 'https://accounts.google.com', email: 'alice@example.com', sub: '1234567', nonce: 'n' }, token);
        const body = type === 'OAUTH' ? { type, accountId: 'InternalAccount:a', oidcToken } : { type, accountId: 'InternalAccount:a', nickname: 'Laptop', challenge: token, attestation: { credentialId: token } };
        const d = describeSignedRequest({ method: 'POST', path: '/auth/credentials', body });
        expect(all(d)).not.toContain(token);
        expect(all(d)).not.toContain(oidcToken.split('.')[1]);
        expect(d.raw).toBeUndefined();
      }),
    );
  });
});

describe('masking', () => {
  it('an email shows only its first character and its domain', () => {
    fc.assert(
      fc.property(email, (e) => {
        const at = e.lastIndexOf('@');
        const masked = maskEmail(e);
        expect(masked.endsWith(e.slice(at))).toBe(true);
        const local = masked.slice(0, masked.length - (e.length - at));
        expect(local.replace(/•/g, '')).toBe(e.slice(0, 1));
      }),
    );
  });

  it('a phone number shows at most its last two digits', () => {
    fc.assert(
      fc.property(phone, (p) => {
        const shown = maskPhone(p).replace(/[^0-9]/g, '');
        expect(shown.length).toBeLessThanOrEqual(2);
        expect(p.endsWith(shown)).toBe(true);
      }),
    );
  });

  it('ending sessions: how many, which one of them (its sign-in masked, when) only for the session this request ends, "all other devices" with its warning', () => {
    fc.assert(
      fc.property(endSessions, (c) => {
        const d = describeSignedRequest(c.request, c.facts, { locale: 'en-US', timeZone: 'UTC' });
        const s = c.facts.sessions as NonNullable<KnownFacts['sessions']>;
        const value = (label: string) => d.lines.find((l) => l.label === label)?.value;
        const many = s.count > 1 || s.allOtherDevices;
        expect(d.title).toBe(many ? DEFAULT_STRINGS.endSessionsTitle : DEFAULT_STRINGS.endSessionTitle);
        expect(value(DEFAULT_STRINGS.sessions)).toBe(s.allOtherDevices ? `All other devices (${s.count})` : `${s.count} session(s)`);
        expect(d.warnings).toEqual(s.allOtherDevices ? [DEFAULT_STRINGS.endSessionsWarning] : []);
        expect(value(DEFAULT_STRINGS.sessionPlace)).toBe(many && s.index !== undefined ? `${s.index} of ${s.count}` : undefined);
        const ours = s.ending !== undefined && c.request.path === `/auth/sessions/${encodeURIComponent(s.ending.id as string)}`;
        const type = s.ending?.type as 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY' | undefined;
        const masked = type === 'EMAIL_OTP' ? ` (${maskEmail(s.ending?.nickname as string)})` : type === 'SMS_OTP' ? ` (${maskPhone(s.ending?.nickname as string)})` : '';
        expect(value(DEFAULT_STRINGS.signedInWith)).toBe(ours && type !== undefined ? `${DEFAULT_STRINGS[type]}${masked}` : undefined);
        expect(value(DEFAULT_STRINGS.signedInOn)?.includes(String(new Date(s.ending?.createdAt as string).getUTCFullYear()))).toBe(ours ? true : undefined);
        // A listed email or phone never shows in full.
        if (ours && (type === 'EMAIL_OTP' || type === 'SMS_OTP') && (s.ending?.nickname as string).indexOf('@') !== 1) expect(all(d)).not.toContain(s.ending?.nickname);
      }),
      { numRuns: 500 },
    );
  });

  it('a listed credential being removed: its type, and its own email or phone masked (never in full)', () => {
    fc.assert(
      fc.property(removeCredential, (c) => {
        const d = describeSignedRequest(c.request, c.facts);
        const { type, nickname } = c.facts.credential as { type: 'EMAIL_OTP' | 'SMS_OTP' | 'OAUTH' | 'PASSKEY'; nickname?: string };
        expect(d.lines[0]).toEqual({ label: DEFAULT_STRINGS.credentialType, value: DEFAULT_STRINGS[type] });
        if (nickname === undefined) return;
        const contact = d.lines[1];
        if (type === 'SMS_OTP') expect(contact).toEqual({ label: DEFAULT_STRINGS.phone, value: maskPhone(nickname) });
        else if (type === 'PASSKEY') expect(contact).toEqual({ label: DEFAULT_STRINGS.nickname, value: nickname });
        else expect(contact).toEqual({ label: DEFAULT_STRINGS.email, value: maskEmail(nickname) });
        if (type !== 'PASSKEY' && nickname.indexOf('@') !== 1) expect(all(d)).not.toContain(nickname);
      }),
    );
  });

  it('a credential line never shows the unmasked email or phone', () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        if (c.kind !== 'add-credential' && c.kind !== 'remove-credential') return;
        const d = describeSignedRequest(c.request, c.facts);
        const customer = c.facts.customer ?? {};
        if (customer.email !== undefined && customer.email.indexOf('@') > 1) expect(all(d)).not.toContain(customer.email);
        const phoneLine = d.lines.find((l) => l.label === DEFAULT_STRINGS.phone);
        if (phoneLine !== undefined) expect(phoneLine.value.replace(/[^0-9]/g, '').length).toBeLessThanOrEqual(2);
        const emailLine = d.lines.find((l) => l.label === DEFAULT_STRINGS.email);
        // An OAUTH credential's email is its token's (words-identity.test.ts), masked the same way.
        const oauth = (c.request.body as { type?: string } | undefined)?.type === 'OAUTH';
        if (emailLine !== undefined && !oauth) expect(emailLine.value).toBe(maskEmail(customer.email as string));
      }),
    );
  });
});
