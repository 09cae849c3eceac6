// The session endpoints (service.ts) over a real client whose `fetch` is an in-process service: the
// answers are the test's input. list: generated answers judged by an oracle of the decision written
// in list (every entry names its session, else BAD_RESPONSE). end and refresh: generated session ids
// (the path carries them encoded, one segment), the service's answer to each leg (404 means "not
// active any more" for end only), signed with real session keys given as a signer or as the function
// that gives one (stamps verified with node:crypto), and the signing options the manager passes
// (automatic, approved, signingSignal) as onBeforeSign sees them. No sandbox.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSessionKey, signerFromKey, type SessionKey } from '../../src/crypto/index.js';
import { createSessionService, type SessionSigner, type SigningOptions } from '../../src/session/service.js';
import { createClient, type SignRequest } from '../../src/transport/index.js';
import { walletErrorOf } from '../helpers/errors.js';
import { verifyStampWithNode } from '../transport/fake-server.js';

const BASE = 'http://service.test/2025-10-13';

let key: SessionKey;
let other: SessionKey;
beforeAll(async () => {
  [key, other] = await Promise.all([generateSessionKey(), generateSessionKey()]);
});

interface Leg {
  method: string;
  url: URL;
  rawPath: string;
  body: unknown;
  signature: string | null;
  requestId: string | null;
}

/** An in-process service: `answer(leg, i)` gives each leg's status and body. */
function service(answer: (leg: Leg, i: number) => { status: number; body?: unknown }) {
  const legs: Leg[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init?.headers);
    const url = new URL(href);
    const leg: Leg = {
      method: init?.method ?? 'GET',
      url,
      rawPath: url.pathname.slice(new URL(BASE).pathname.length),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      signature: headers.get('Service-Wallet-Signature'),
      requestId: headers.get('Request-Id'),
    };
    legs.push(leg);
    const a = answer(leg, legs.length - 1);
    const text = a.body === undefined ? null : JSON.stringify(a.body);
    return new Response(a.status === 204 ? null : text, { status: a.status, headers: text === null ? {} : { 'Content-Type': 'application/json' } });
  };
  return { fetch, legs };
}

const CHALLENGE = { payloadToSign: '{"challenge":1}', requestId: 'Request:1', expiresAt: '2099-01-01T00:00:00.000Z' };

function signedBy(leg: Leg | undefined, publicKeyHex: string): boolean {
  if (!leg?.signature) return false;
  const check = verifyStampWithNode(leg.signature, CHALLENGE.payloadToSign);
  return check.ok && check.publicKey === publicKeyHex;
}

const sessionId = fc.oneof(fc.stringMatching(/^Session:[0-9a-f-]{1,12}$/), fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('a/b', '../x', 'a?b=c', 'a#b', '%2F', 'x y', 'é€')).filter((s) => s !== '.' && s !== '..');

describe('service.list: GET /auth/sessions?accountId=', () => {
  const entry = fc.oneof(
    { weight: 6, arbitrary: fc.record({ id: fc.string({ maxLength: 8 }), expiresAt: fc.constant('2099-01-01T00:00:00Z') }) },
    fc.record({ id: fc.constantFrom(1, null, undefined, ['Session:1'], { id: 'x' }) }),
    fc.record({ sessionId: fc.constant('Session:1') }),
    fc.constantFrom(null, 'Session:1', 3, true, []),
  );
  const answer = fc.oneof(
    { weight: 6, arbitrary: fc.record({ data: fc.array(entry, { maxLength: 4 }) }) },
    fc.record({ data: fc.constantFrom(null, 'x', 1, {}, { 0: { id: 'a' }, length: 1 }) }),
    fc.constantFrom(null, [], [{ id: 'a' }], 'text', 0, {}),
  );

  /** Oracle: an object with a `data` array whose every entry is an object with a string id. */
  function usable(a: unknown): a is { data: Array<{ id: string }> } {
    if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
    const data = (a as { data?: unknown }).data;
    return Array.isArray(data) && data.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e) && typeof (e as { id?: unknown }).id === 'string');
  }

  it('returns the entries of a usable answer as they came; anything else is BAD_RESPONSE, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 12 }), answer, async (accountId, a) => {
        const s = service(() => ({ status: 200, body: a }));
        const svc = createSessionService(createClient({ baseUrl: BASE, fetch: s.fetch }));
        const got = await svc.list(accountId).then(
          (value) => ({ value }),
          (error: unknown) => ({ code: (error as { code?: string }).code }),
        );
        expect(s.legs).toHaveLength(1);
        expect(s.legs[0]!.method).toBe('GET');
        expect(s.legs[0]!.rawPath).toBe('/auth/sessions');
        expect(s.legs[0]!.url.searchParams.get('accountId')).toBe(accountId);
        expect(s.legs[0]!.signature).toBeNull();
        if (usable(a)) expect(got).toEqual({ value: JSON.parse(JSON.stringify(a.data)) });
        else expect(got).toEqual({ code: 'BAD_RESPONSE' });
      }),
      { numRuns: 200 },
    );
  });

  it("the service's own refusal passes through with its status", async () => {
    const s = service(() => ({ status: 503, body: { code: 'UNAVAILABLE', message: 'later' } }));
    const error = await walletErrorOf(createSessionService(createClient({ baseUrl: BASE, fetch: s.fetch })).list('InternalAccount:1'));
    expect(error.status).toBe(503);
  });
});

/** The signer as given, or as the function the manager passes (asked after the prompt). */
const signerForm = fc.constantFrom('signer', 'function') as fc.Arbitrary<'signer' | 'function'>;
function signerOf(form: 'signer' | 'function', k: SessionKey): SessionSigner {
  const signer = signerFromKey(k);
  return form === 'signer' ? signer : async () => signer;
}

describe('service.end: signed DELETE /auth/sessions/{id}', () => {
  // What the service answers: at once (no challenge) or to the signed leg.
  const outcome = fc.record({ challenged: fc.boolean(), status: fc.constantFrom(200, 204, 404, 400, 401, 409, 500) });

  it('true once deleted, false when the session was not active any more (404 at either leg), any other refusal thrown as is', async () => {
    await fc.assert(
      fc.asyncProperty(sessionId, signerForm, outcome, async (id, form, o) => {
        const s = service((_leg, i) => {
          if (o.challenged && i === 0) return { status: 202, body: CHALLENGE };
          return o.status < 300 ? { status: o.status, body: o.status === 204 ? undefined : { id } } : { status: o.status, body: { code: 'NOPE', message: 'refused' } };
        });
        const prompts: SignRequest[] = [];
        const svc = createSessionService(createClient({ baseUrl: BASE, fetch: s.fetch, onBeforeSign: (r) => void prompts.push(r) }));
        const got = await svc.end(id, signerOf(form, key)).then(
          (value) => ({ value }),
          (error: unknown) => ({ status: (error as { status?: number }).status }),
        );
        // The path names the session in one segment, encoded.
        for (const leg of s.legs) {
          expect(leg.method).toBe('DELETE');
          const segments = leg.rawPath.split('/');
          expect(segments.slice(0, 3)).toEqual(['', 'auth', 'sessions']);
          expect(segments).toHaveLength(4);
          expect(decodeURIComponent(segments[3]!)).toBe(id);
        }
        if (o.status < 300) expect(got).toEqual({ value: true });
        else if (o.status === 404) expect(got).toEqual({ value: false });
        else expect(got).toEqual({ status: o.status });
        if (o.challenged) {
          expect(s.legs).toHaveLength(2);
          expect(signedBy(s.legs[1], key.publicKeyHex)).toBe(true);
          expect(prompts.map((p) => [p.purpose, p.method, p.automatic])).toEqual([['delete-session', 'DELETE', false]]);
        } else {
          expect(s.legs).toHaveLength(1);
          expect(prompts).toEqual([]);
        }
      }),
      { numRuns: 120 },
    );
  });

  it('a failure that is no answer of the service (the network) is thrown, not read as "ended"', async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError('offline');
    };
    const error = await walletErrorOf(createSessionService(createClient({ baseUrl: BASE, fetch })).end('Session:1', signerFromKey(key)));
    expect(error.code).toBe('NETWORK_ERROR');
  });
});

describe('service: the signing options the manager passes', () => {
  // automatic/approved given as true, false or not at all; a signingSignal aborted before, during the prompt, or never.
  const flag = fc.constantFrom(true, false, undefined);
  const options = fc.record({ automatic: flag, approved: flag, abort: fc.constantFrom('none', 'before', 'at-prompt', 'given-unfired') });

  it('automatic and approved count only when true; the signingSignal cancels the signature (ABORTED, never sent)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('end', 'refresh'), signerForm, options, async (call, form, o) => {
        const s = service((_leg, i) => (i === 0 ? { status: 202, body: CHALLENGE } : { status: 200, body: { id: 'Session:new', expiresAt: '2099-01-01T00:00:00.000Z' } }));
        const controller = new AbortController();
        if (o.abort === 'before') controller.abort();
        const prompts: SignRequest[] = [];
        const svc = createSessionService(
          createClient({
            baseUrl: BASE,
            fetch: s.fetch,
            onBeforeSign: (r) => {
              prompts.push(r);
              if (o.abort === 'at-prompt') controller.abort();
            },
          }),
        );
        const signing: SigningOptions = {
          ...(o.automatic !== undefined && { automatic: o.automatic }),
          ...(o.approved !== undefined && { approved: o.approved }),
          ...(o.abort !== 'none' && { signingSignal: controller.signal }),
        };
        const run = call === 'end' ? svc.end('Session:old', signerOf(form, key), signing) : svc.refresh('Session:old', other.publicKeyHex, signerOf(form, key), signing);
        const got = await run.then(
          () => 'done',
          (error: unknown) => (error as { code?: string }).code,
        );
        const asked = o.approved !== true && o.abort !== 'before';
        expect(prompts.map((p) => p.automatic)).toEqual(asked ? [o.automatic === true] : []);
        const cancelled = o.abort === 'before' || (o.abort === 'at-prompt' && o.approved !== true);
        expect(got).toBe(cancelled ? 'ABORTED' : 'done');
        expect(s.legs.filter((l) => l.signature !== null)).toHaveLength(cancelled ? 0 : 1);
      }),
      { numRuns: 150 },
    );
  });
});

describe('service.refresh: signed POST /auth/sessions/{id}/refresh', () => {
  const answer = fc.oneof(
    { weight: 3, arbitrary: fc.record({ id: fc.stringMatching(/^Session:[0-9a-f]{1,8}$/), expiresAt: fc.constant('2099-01-01T00:00:00.000Z'), accountId: fc.constant('InternalAccount:1') }) },
    fc.constantFrom(null, 'x', [], {}, { id: '' , expiresAt: '2099-01-01T00:00:00.000Z' }, { id: 'Session:1' }, { id: 'Session:1', expiresAt: 'soon' }, { id: 3, expiresAt: '2099-01-01T00:00:00.000Z' }),
  );

  it('sends the new key, signed by the old session; returns a usable AuthSession, else BAD_RESPONSE', async () => {
    await fc.assert(
      fc.asyncProperty(sessionId, signerForm, answer, async (id, form, a) => {
        const s = service((_leg, i) => (i === 0 ? { status: 202, body: CHALLENGE } : { status: 200, body: a }));
        const prompts: SignRequest[] = [];
        const svc = createSessionService(createClient({ baseUrl: BASE, fetch: s.fetch, onBeforeSign: (r) => void prompts.push(r) }));
        const got = await svc.refresh(id, other.publicKeyHex, signerOf(form, key)).then(
          (value) => ({ value }),
          (error: unknown) => ({ code: (error as { code?: string }).code }),
        );
        expect(s.legs).toHaveLength(2);
        for (const leg of s.legs) {
          expect(leg.method).toBe('POST');
          const segments = leg.rawPath.split('/');
          expect(segments).toHaveLength(5);
          expect([segments[1], segments[2], segments[4]]).toEqual(['auth', 'sessions', 'refresh']);
          expect(decodeURIComponent(segments[3]!)).toBe(id);
          expect(leg.body).toEqual({ clientPublicKey: other.publicKeyHex });
        }
        expect(signedBy(s.legs[1], key.publicKeyHex)).toBe(true);
        expect(prompts.map((p) => [p.purpose, p.method, p.automatic])).toEqual([['refresh-session', 'POST', false]]);
        const ok = typeof a === 'object' && a !== null && !Array.isArray(a) && typeof (a as { id?: unknown }).id === 'string' && (a as { id: string }).id !== '' && !Number.isNaN(Date.parse(String((a as { expiresAt?: unknown }).expiresAt)));
        expect(got).toEqual(ok ? { value: a } : { code: 'BAD_RESPONSE' });
      }),
      { numRuns: 100 },
    );
  });

  it('a 404 is not swallowed: the refresh fails with it', async () => {
    const s = service(() => ({ status: 404, body: { code: 'NOT_FOUND', message: 'gone' } }));
    const error = await walletErrorOf(createSessionService(createClient({ baseUrl: BASE, fetch: s.fetch })).refresh('Session:1', other.publicKeyHex, signerFromKey(key)));
    expect(error.status).toBe(404);
  });
});
