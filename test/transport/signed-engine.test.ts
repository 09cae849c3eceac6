// The signed-retry engine (src/transport/signed.ts) judged case by case: which 202 bodies are
// challenges, when a challenge counts as expired (before signing, after the prompt, and when the
// signed leg is refused), which 2xx answers are results, PROCESSING's backoff, the prompt's signal,
// and what a signer or getSigner that misbehaves gives. Generated inputs (fast-check) against an
// oracle written from the decisions in signed.ts; precise examples for the error codes callers match
// on. The service is in-process (the client's `fetch` option) with a clock the test sets, so the
// Date headers and the local clock land exactly on the boundaries; stamps are verified with
// node:crypto. Written from the StrykerJS survivors of signed.ts (test/session/MUTATION.md).
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type SignRequest } from '../../src/transport/index.js';
import { generateSessionKey, signerFromKey, type SessionKey, type Signer } from '../../src/crypto/index.js';
import { WalletError, isWalletError } from '../../src/errors.js';
import { walletErrorOf } from '../helpers/errors.js';
import { verifyStampWithNode } from './fake-server.js';

const BASE = 'http://service.test/2025-10-13';
const PATH = '/internal-accounts/InternalAccount:1';
const RUNS = 120;

let key: SessionKey;
beforeAll(async () => {
  key = await generateSessionKey();
});

interface Leg {
  signature: string | null;
  requestId: string | null;
  body: string | null;
  /** performance.now() when the request arrived. */
  at: number;
}

interface Answer {
  status: number;
  /** An object is sent as JSON, a string as is; undefined: an empty body. */
  body?: unknown;
  /** The server's clock for the Date header (epoch ms; the header keeps whole seconds). */
  date?: number;
}

/** An in-process service behind the client's `fetch` option: answers each request from `answer`. */
function service(answer: (leg: Leg, index: number) => Answer) {
  const legs: Leg[] = [];
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const headers = new Headers(init?.headers);
    const leg: Leg = {
      signature: headers.get('Service-Wallet-Signature'),
      requestId: headers.get('Request-Id'),
      body: typeof init?.body === 'string' ? init.body : null,
      at: performance.now(),
    };
    legs.push(leg);
    const a = answer(leg, legs.length - 1);
    const out: Record<string, string> = {};
    if (a.date !== undefined) out.Date = new Date(a.date).toUTCString();
    let text: string | null = null;
    if (a.body !== undefined) {
      text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      out['Content-Type'] = 'application/json';
    }
    return new Response(a.status === 204 || a.status === 205 ? null : text, { status: a.status, headers: out });
  };
  return { fetch, legs, signed: () => legs.filter((l) => l.signature !== null) };
}

let counter = 0;
function challenge(expiresAtMs: number): { payloadToSign: string; requestId: string; expiresAt: string } {
  counter++;
  return { payloadToSign: JSON.stringify({ n: counter, nonce: Math.random() }), requestId: `Request:${counter}`, expiresAt: new Date(expiresAtMs).toISOString() };
}

/** The stamp on `leg` is over `payload`, by `signer` (node:crypto). */
function stampedBy(leg: Leg | undefined, payload: string, publicKeyHex: string): boolean {
  if (!leg?.signature) return false;
  const check = verifyStampWithNode(leg.signature, payload);
  return check.ok && check.publicKey === publicKeyHex;
}

/** Settles `promise` to {value} or {error}. */
async function outcome(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

const WHOLE_SECOND = fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }).map((s) => s * 1000);

describe('signed engine: what counts as a challenge (parseChallenge)', () => {
  const nonString = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant({ toString: 0 }));
  const payload = fc.oneof({ weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) }, fc.constant(''), nonString);
  const requestId = fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^Request:[0-9a-f-]{1,12}$/) },
    fc.constantFrom('', ' Request:1', 'Request:1 ', '\tRequest:1', 'Request:1\u00a0', 'Request:\n1', 'Request:\r1', 'Request:\u00001', 'Request:\u00e9', 'Request:\u0100', 'Req\tuest', 'Request:\u{1f4b3}'),
    fc.string({ maxLength: 8 }),
    nonString,
  );
  const expiresAt = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: -86_400_000, max: 86_400_000 }).map((d) => new Date(Date.now() + d).toISOString()) },
    fc.constantFrom('soon', '', '2099-13-01T00:00:00Z', 'Fri, 01 Jan 2100 00:00:00 GMT', '2030-01-01', 'NaN'),
    fc.string({ maxLength: 10 }),
    nonString,
  );
  const body = fc.oneof(
    { weight: 6, arbitrary: fc.record({ payloadToSign: payload, requestId, expiresAt }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    fc.constantFrom(null, 'text', 0, true, [], [{ payloadToSign: 'x', requestId: 'Request:1', expiresAt: '2099-01-01T00:00:00Z' }]),
  );

  /**
   * Oracle (the decision in parseChallenge): an object (not an array) with a non-empty string
   * payloadToSign, a non-empty string requestId that a header carries as is (tab, printable ASCII,
   * U+0080–U+00FF; nothing a trim removes around it) and a string expiresAt that is a date.
   */
  function usable(b: unknown): b is { payloadToSign: string; requestId: string; expiresAt: string } {
    if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
    const { payloadToSign: p, requestId: r, expiresAt: e } = b as Record<string, unknown>;
    if (typeof p !== 'string' || p === '' || typeof r !== 'string' || r === '') return false;
    if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(r) || r.trim() !== r) return false;
    return typeof e === 'string' && !Number.isNaN(new Date(e).getTime());
  }

  it('a usable 202 is answered with Request-Id and a stamp over payloadToSign; anything else is BAD_RESPONSE, never prompted, never signed', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        // No Date header: the server judges expiry, so only the body decides.
        const s = service((leg) => (leg.signature === null ? { status: 202, body: b === null ? 'null' : b } : { status: 200, body: { done: true } }));
        const prompts: SignRequest[] = [];
        const result = await outcome(
          createClient({ baseUrl: BASE, fetch: s.fetch }).signed({ method: 'PATCH', path: PATH, body: { x: 1 }, signer: key, purpose: 'p', onBeforeSign: (r) => void prompts.push(r) }),
        );
        if (usable(b)) {
          expect(result).toEqual({ value: { done: true } });
          expect(s.legs).toHaveLength(2);
          expect(s.legs[1]!.requestId).toBe(b.requestId);
          expect(stampedBy(s.legs[1], b.payloadToSign, key.publicKeyHex)).toBe(true);
          expect(prompts.map((r) => [r.payloadToSign, r.requestId, r.expiresAt])).toEqual([[b.payloadToSign, b.requestId, b.expiresAt]]);
        } else {
          expect(result.error).toBeInstanceOf(WalletError);
          expect(result.error).toMatchObject({ code: 'BAD_RESPONSE', status: 202 });
          expect(prompts).toEqual([]);
          expect(s.legs).toHaveLength(1);
        }
      }),
      {
        numRuns: RUNS,
        examples: [[null], [{ payloadToSign: 'x', requestId: 'Request:1', expiresAt: { toString: 0 } }], [{ payloadToSign: 'x', requestId: 'Request:1', expiresAt: 1e12 }]],
      },
    );
  });
});

describe('signed engine: a challenge expired before it is signed (hasExpired, on the server clock)', () => {
  /**
   * Oracle: the server's clock is its Date header (whole seconds) plus the local time gone by since
   * the answer arrived; the challenge is expired when less than 1000 ms is left on it, judged when
   * it arrives and again after the prompt. Expired → leg 1 is sent again, once.
   */
  it('restarts exactly when less than 1 s is left on the server clock, before the prompt or after it', async () => {
    const remaining = fc.oneof(fc.constantFrom(-1, 0, 999, 1000, 1001, 1999, 2000), fc.integer({ min: -600_000, max: 600_000 }));
    const promptMs = fc.oneof(fc.constant(0), fc.constantFrom(1, 999, 1000, 1001), fc.integer({ min: 0, max: 600_000 }));
    await fc.assert(
      fc.asyncProperty(WHOLE_SECOND, fc.integer({ min: -86_400_000, max: 86_400_000 }), remaining, promptMs, async (server0, localAhead, left, waited) => {
        let local = server0 + localAhead; // the local clock, `localAhead` ms ahead of the server's
        const serverNow = () => local - localAhead;
        const issued: Array<ReturnType<typeof challenge>> = [];
        const s = service((leg) => {
          if (leg.signature !== null) return { status: 200, body: { done: true }, date: serverNow() };
          const c = challenge(issued.length === 0 ? serverNow() + left : serverNow() + 300_000);
          issued.push(c);
          return { status: 202, body: c, date: serverNow() };
        });
        let prompts = 0;
        const client = createClient({
          baseUrl: BASE,
          fetch: s.fetch,
          now: () => local,
          onBeforeSign: (r) => {
            prompts++;
            // The user takes `waited` ms on the first challenge's prompt only.
            if (r.requestId === issued[0]!.requestId) local += waited;
          },
        });
        const expiredBefore = left < 1000;
        const expiredAfter = !expiredBefore && left - waited < 1000;
        expect(await client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' })).toEqual({ done: true });
        const shape = s.legs.map((l) => l.signature !== null);
        if (expiredBefore || expiredAfter) {
          expect(shape).toEqual([false, false, true]);
          expect(prompts).toBe(expiredBefore ? 1 : 2);
          expect(s.legs[2]!.requestId).toBe(issued[1]!.requestId);
          expect(stampedBy(s.legs[2], issued[1]!.payloadToSign, key.publicKeyHex)).toBe(true);
        } else {
          expect(shape).toEqual([false, true]);
          expect(prompts).toBe(1);
          expect(stampedBy(s.legs[1], issued[0]!.payloadToSign, key.publicKeyHex)).toBe(true);
        }
      }),
      { numRuns: RUNS, examples: [[1_800_000_000_000, 3_600_000, 1000, 0], [1_800_000_000_000, -3_600_000, 999, 0], [1_800_000_000_000, 0, 2000, 1000], [1_800_000_000_000, 0, 2000, 1001]] },
    );
  });
});

describe('signed engine: a signed leg refused once the challenge has expired (isExpiredRejection)', () => {
  const refusal = fc.oneof(
    { weight: 3, arbitrary: fc.constant({ code: 'WALLET_SIGNATURE_INVALID', status: 401 }) },
    fc.record({ code: fc.constantFrom('WALLET_SIGNATURE_INVALID', 'UNAUTHORIZED', 'REQUEST_NOT_FOUND'), status: fc.constantFrom(400, 401, 403, 404) }),
  );

  /**
   * Oracle (the decision in isExpiredRejection): only `401 WALLET_SIGNATURE_INVALID` can mean "expired
   * on the way"; it does when less than 1000 ms is left on the server's clock, read from the
   * refusal's Date header, else the local clock shifted by the skew the challenge's Date header
   * showed, else the local clock. Then the call starts over once; otherwise the refusal is the answer.
   */
  it('starts over exactly when a 401 WALLET_SIGNATURE_INVALID comes with less than 1 s left on the best server clock known', async () => {
    await fc.assert(
      fc.asyncProperty(
        WHOLE_SECOND,
        fc.integer({ min: -7_200_000, max: 7_200_000 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 2, max: 600 }),
        fc.oneof(fc.constantFrom(-1000, -1, 0, 1, 999, 1000), fc.integer({ min: -700_000, max: 700_000 })),
        refusal,
        async (server0, localAhead, challengeDate, refusalDate, ttlSeconds, delta, refused) => {
          const ttl = ttlSeconds * 1000;
          const elapsed = Math.max(0, ttl - 1000 + delta); // time from the challenge to the refusal
          let local = server0 + localAhead;
          let server = server0;
          const issued: Array<ReturnType<typeof challenge>> = [];
          let refusedOnce = false;
          const s = service((leg) => {
            if (leg.signature === null) {
              const c = challenge(issued.length === 0 ? server + ttl : server + 300_000);
              issued.push(c);
              return challengeDate ? { status: 202, body: c, date: server } : { status: 202, body: c };
            }
            if (refusedOnce) return { status: 200, body: { done: true } };
            refusedOnce = true;
            // The signed leg arrives `elapsed` ms later on both clocks.
            local += elapsed;
            server += elapsed;
            const body = { code: refused.code, reason: 'refused' };
            return refusalDate ? { status: refused.status, body, date: server } : { status: refused.status, body };
          });
          const client = createClient({ baseUrl: BASE, fetch: s.fetch, now: () => local });
          const result = await outcome(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' }));

          const expiresAtMs = server0 + ttl;
          const serverNow = refusalDate ? Math.floor((server0 + elapsed) / 1000) * 1000 : server0 + localAhead + elapsed + (challengeDate ? -localAhead : 0);
          const restart = refused.code === 'WALLET_SIGNATURE_INVALID' && refused.status === 401 && expiresAtMs - serverNow < 1000;
          if (restart) {
            expect(result).toEqual({ value: { done: true } });
            expect(s.legs.map((l) => l.signature !== null)).toEqual([false, true, false, true]);
            expect(stampedBy(s.legs[3], issued[1]!.payloadToSign, key.publicKeyHex)).toBe(true);
          } else {
            expect(isWalletError(result.error)).toBe(true);
            expect(result.error).toMatchObject({ code: refused.code, status: refused.status });
            expect(s.legs.map((l) => l.signature !== null)).toEqual([false, true]);
          }
        },
      ),
      {
        numRuns: RUNS * 2,
        examples: [
          // The refusal's Date shows exactly 1000 ms left: not expired, the refusal is the answer.
          [1_800_000_000_000, 0, true, true, 10, 0, { code: 'WALLET_SIGNATURE_INVALID', status: 401 }],
          // No Date on the refusal: the challenge's skew (server an hour behind) decides; without it the local clock would say expired.
          [1_800_000_000_000, 3_600_000, true, false, 300, 0, { code: 'WALLET_SIGNATURE_INVALID', status: 401 }],
          // Server an hour ahead: the local clock alone would say "not expired".
          [1_800_000_000_000, -3_600_000, true, false, 300, 60_000, { code: 'WALLET_SIGNATURE_INVALID', status: 401 }],
          // Expired, but not a signature refusal, or not a 401: passed through.
          [1_800_000_000_000, 0, true, true, 10, 60_000, { code: 'UNAUTHORIZED', status: 401 }],
          [1_800_000_000_000, 0, true, true, 10, 60_000, { code: 'WALLET_SIGNATURE_INVALID', status: 403 }],
        ],
      },
    );
  });

  it('after a restart, a failure of the second attempt that is not an expiry is passed through as is', async () => {
    let n = 0;
    const s = service((leg) => {
      if (leg.signature !== null) return { status: 200, body: { done: true } };
      // The first challenge has expired on arrival (server clock), the second has 5 minutes.
      return { status: 202, body: challenge(n++ === 0 ? Date.now() - 1000 : Date.now() + 300_000), date: Date.now() };
    });
    let prompts = 0;
    const error = await walletErrorOf(
      createClient({ baseUrl: BASE, fetch: s.fetch }).signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', onBeforeSign: () => (prompts++, false) }),
    );
    expect(error.code).toBe('SIGNING_REFUSED');
    expect(prompts).toBe(1);
    expect(s.signed()).toEqual([]);
  });
});

describe('signed engine: which 2xx answers are results (sendLeg)', () => {
  /**
   * Oracle: 204/205 → undefined (no body is read); an empty or non-JSON body → BAD_RESPONSE with the
   * status; `200 {status: "PROCESSING"}` without an id → resent (none allowed here: STILL_PROCESSING
   * with status 200); any other JSON → the result. The same on leg 1 and on the signed leg.
   */
  it('turns each 2xx answer of leg 1 or of the signed leg into its result or error', async () => {
    const body = fc.oneof(
      fc.constant(undefined),
      fc.constant('{not json'),
      fc.constant({ status: 'PROCESSING' }),
      fc.constant({ status: 'PROCESSING', id: 'Quote:1' }),
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(200, 201, 203, 204, 205, 206), body, fc.boolean(), async (status, b, onSignedLeg) => {
        const s = service((leg) =>
          onSignedLeg && leg.signature === null ? { status: 202, body: challenge(Date.now() + 300_000), date: Date.now() } : { status, body: b },
        );
        const client = createClient({ baseUrl: BASE, fetch: s.fetch, maxProcessingResends: 0 });
        const result = await outcome(client.signed({ method: 'POST', path: '/x', body: {}, signer: key, purpose: 'p' }));
        const text = b === undefined ? '' : typeof b === 'string' ? b : JSON.stringify(b);
        let parsed: unknown;
        let json = text !== '';
        try {
          parsed = json ? JSON.parse(text) : undefined;
        } catch {
          json = false;
        }
        if (status === 204 || status === 205) expect(result).toEqual({ value: undefined });
        else if (!json) expect(result.error).toMatchObject({ code: 'BAD_RESPONSE', status });
        else if (status === 200 && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && (parsed as { status?: unknown }).status === 'PROCESSING' && !('id' in parsed)) {
          expect(result.error).toMatchObject({ code: 'STILL_PROCESSING', status: 200 });
        } else expect(result).toEqual({ value: parsed });
        expect(s.legs).toHaveLength(onSignedLeg ? 2 : 1);
      }),
      { numRuns: RUNS, examples: [[204, undefined, true], [205, undefined, false], [205, undefined, true], [204, undefined, false]] },
    );
  });

  it('waits processingBackoffMs × n before the n-th resend of a PROCESSING leg', async () => {
    const backoff = 60;
    let processing = 3;
    const s = service((leg) =>
      leg.signature === null ? { status: 202, body: challenge(Date.now() + 300_000) } : processing-- > 0 ? { status: 200, body: { status: 'PROCESSING' } } : { status: 200, body: { done: true } },
    );
    const client = createClient({ baseUrl: BASE, fetch: s.fetch, processingBackoffMs: backoff });
    expect(await client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' })).toEqual({ done: true });
    const signed = s.signed();
    expect(signed).toHaveLength(4);
    expect(new Set(signed.map((l) => l.signature)).size).toBe(1);
    const gaps = signed.slice(1).map((l, i) => l.at - signed[i]!.at);
    gaps.forEach((gap, i) => {
      const expected = backoff * (i + 1);
      expect(gap).toBeGreaterThanOrEqual(expected - 5);
      expect(gap).toBeLessThan(expected + 1000); // far below the 2000 ms cap
    });
  });
});

/** A service that answers leg 1 with a fresh 5-minute challenge (kept in `issued`) and the signed leg with 200. */
function answered() {
  const issued: Array<ReturnType<typeof challenge>> = [];
  const s = service((leg) => {
    if (leg.signature !== null) return { status: 200, body: { done: true } };
    const c = challenge(Date.now() + 300_000);
    issued.push(c);
    return { status: 202, body: c, date: Date.now() };
  });
  return { ...s, issued };
}

describe('signed engine: the prompt (confirm)', () => {
  it('a signingSignal aborted before the prompt: ABORTED with its reason as cause, the prompt never shown, nothing signed (challenge and stamped forms)', async () => {
    for (const stampOnly of [undefined, 'quote payload']) {
      const s = answered();
      const stop = new AbortController();
      stop.abort('logged out');
      let prompts = 0;
      const error = await walletErrorOf(
        createClient({ baseUrl: BASE, fetch: s.fetch }).signed({
          method: 'POST',
          path: '/x',
          body: {},
          signer: key,
          purpose: 'p',
          signingSignal: stop.signal,
          onBeforeSign: () => void prompts++,
          ...(stampOnly === undefined ? {} : { stampOnly }),
        }),
      );
      expect([error.code, error.cause]).toEqual(['ABORTED', 'logged out']);
      expect(prompts).toBe(0);
      expect(s.signed()).toEqual([]);
    }
  });

  it('stamped form: a signingSignal fired while the hook approves sends nothing (ABORTED)', async () => {
    const s = answered();
    const stop = new AbortController();
    const error = await walletErrorOf(
      createClient({ baseUrl: BASE, fetch: s.fetch }).signed({
        method: 'POST',
        path: '/quotes/Quote:1/execute',
        stampOnly: 'quote payload',
        signer: key,
        purpose: 'execute-quote',
        signingSignal: stop.signal,
        onBeforeSign: () => (stop.abort(), true),
      }),
    );
    expect(error.code).toBe('ABORTED');
    expect(s.legs).toEqual([]);
  });

  it("the prompt's signal fires only while the library waits on it: not at the bound after an answer, nor when the call's signals fire later", async () => {
    const s = answered();
    const stop = new AbortController();
    const callStop = new AbortController();
    const signals: AbortSignal[] = [];
    const client = createClient({ baseUrl: BASE, fetch: s.fetch, onBeforeSignTimeoutMs: 30 });
    // Timers are fake: the bound's timer, should one be left, fires when the test moves time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', signal: callStop.signal, signingSignal: stop.signal, onBeforeSign: (r) => void signals.push(r.signal) });
      expect(stampedBy(s.signed()[0], s.issued[0]!.payloadToSign, key.publicKeyHex)).toBe(true);
      await vi.advanceTimersByTimeAsync(80); // past the 30 ms bound
    } finally {
      vi.useRealTimers();
    }
    expect(signals[0]!.aborted).toBe(false);
    stop.abort(new Error('logout'));
    callStop.abort(new Error('gone'));
    expect(signals[0]!.aborted).toBe(false);
  });
});

describe('signed engine: who signs, when the signer or getSigner misbehaves', () => {
  const call = { method: 'PATCH', path: PATH, body: {}, purpose: 'p' } as const;

  it('getSigner answering something that is not a signer: SIGNER_FAILED before the prompt, nothing signed', async () => {
    for (const bad of [undefined, null, 'key', 42, true]) {
      const s = answered();
      let prompts = 0;
      const error = await walletErrorOf(
        createClient({ baseUrl: BASE, fetch: s.fetch }).signed({ ...call, getSigner: () => bad as never, onBeforeSign: () => void prompts++ }),
      );
      expect([bad, error.code]).toEqual([bad, 'SIGNER_FAILED']);
      expect(error.cause).toBeUndefined();
      expect(prompts).toBe(0);
      expect(s.signed()).toEqual([]);
    }
  });

  it('getSigner throwing: a WalletError passes through, anything else is SIGNER_FAILED with it as cause; before the prompt', async () => {
    for (const thrown of [new TypeError('no key'), 'a string', new WalletError('KEY_EVICTED')]) {
      const s = answered();
      let prompts = 0;
      const error = await walletErrorOf(
        createClient({ baseUrl: BASE, fetch: s.fetch }).signed({
          ...call,
          getSigner: () => {
            throw thrown;
          },
          onBeforeSign: () => void prompts++,
        }),
      );
      if (isWalletError(thrown)) expect(error).toBe(thrown);
      else expect([error.code, error.cause]).toEqual(['SIGNER_FAILED', thrown]);
      expect(prompts).toBe(0);
      expect(s.signed()).toEqual([]);
    }
  });

  it('a signer that throws while signing: a WalletError passes through, anything else is SIGNER_FAILED with it as cause', async () => {
    for (const thrown of [new TypeError('token expired'), new WalletError('KEY_EVICTED', 'gone')]) {
      const s = answered();
      const broken: Signer = { publicKeyHex: key.publicKeyHex, sign: async () => Promise.reject(thrown) };
      const error = await walletErrorOf(createClient({ baseUrl: BASE, fetch: s.fetch }).signed({ ...call, signer: broken }));
      if (isWalletError(thrown)) expect(error).toBe(thrown);
      else expect([error.code, error.cause]).toEqual(['SIGNER_FAILED', thrown]);
      expect(s.signed()).toEqual([]);
    }
  });

  it('a JS caller passing signer: null and no getSigner gets INVALID_ARGUMENT, never a signature', async () => {
    const s = answered();
    const error = await walletErrorOf(createClient({ baseUrl: BASE, fetch: s.fetch }).signed({ ...call, signer: null as never }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(s.signed()).toEqual([]);
  });

  it('challenges: 1 given explicitly is the default: one challenge answered, a second refused', async () => {
    const s = answered();
    expect(await createClient({ baseUrl: BASE, fetch: s.fetch }).signed({ ...call, signer: signerFromKey(key), challenges: 1 })).toEqual({ done: true });
    expect(stampedBy(s.signed()[0], s.issued[0]!.payloadToSign, key.publicKeyHex)).toBe(true);
    const twice = service(() => ({ status: 202, body: challenge(Date.now() + 300_000), date: Date.now() }));
    const error = await walletErrorOf(createClient({ baseUrl: BASE, fetch: twice.fetch }).signed({ ...call, signer: key, challenges: 1 }));
    expect([error.code, error.details]).toEqual(['UNEXPECTED_CHALLENGE', { purpose: 'p', allowed: 1 }]);
    expect(twice.signed()).toHaveLength(1);
  });
});

describe('signed engine: signingSignal around the stamp (I2: a logout cancels every signature not yet sent)', () => {
  /** A signer that counts its signatures and runs `during` while signing (e.g. a logout arriving then). */
  function countingSigner(during: () => void = () => undefined): Signer & { signed: number; signedAfterAbort: number; watch: AbortSignal | undefined } {
    const inner = signerFromKey(key);
    const signer = {
      publicKeyHex: key.publicKeyHex,
      signed: 0,
      signedAfterAbort: 0,
      watch: undefined as AbortSignal | undefined,
      async sign(data: Uint8Array) {
        signer.signed++;
        if (signer.watch?.aborted) signer.signedAfterAbort++;
        const der = await inner.sign(data);
        during();
        return der;
      },
    };
    return signer;
  }

  it('fired while the stamp is being made: the stamp never leaves (ABORTED), in the challenge and the stamped forms', async () => {
    for (const stampOnly of [undefined, 'quote payload']) {
      const s = answered();
      const stop = new AbortController();
      const signer = countingSigner(() => stop.abort(new WalletError('NOT_LOGGED_IN', 'logged out in another tab')));
      const error = await walletErrorOf(
        createClient({ baseUrl: BASE, fetch: s.fetch }).signed({
          method: 'POST',
          path: '/x',
          body: {},
          signer,
          purpose: 'p',
          signingSignal: stop.signal,
          onBeforeSign: () => true,
          ...(stampOnly === undefined ? {} : { stampOnly }),
        }),
      );
      expect(error.code).toBe('NOT_LOGGED_IN');
      expect(signer.signed).toBe(1);
      expect(s.signed()).toEqual([]);
      expect(s.legs).toHaveLength(stampOnly === undefined ? 1 : 0);
    }
  });

  it('fired at any point between the approval and the end of the stamp: ABORTED, no stamp made after it, nothing signed leaves', async () => {
    // k microtasks after onBeforeSign approves (the stamp itself resolves later, after WebCrypto).
    for (const stampOnly of [undefined, 'quote payload']) {
      for (let k = 0; k <= 12; k++) {
        const s = answered();
        const stop = new AbortController();
        const signer = countingSigner();
        signer.watch = stop.signal;
        const later = (n: number): void => (n === 0 ? stop.abort() : queueMicrotask(() => later(n - 1)));
        const error = await walletErrorOf(
          createClient({ baseUrl: BASE, fetch: s.fetch }).signed({
            method: 'POST',
            path: '/x',
            body: {},
            signer,
            purpose: 'p',
            signingSignal: stop.signal,
            onBeforeSign: () => (later(k), true),
            ...(stampOnly === undefined ? {} : { stampOnly }),
          }),
        );
        expect([stampOnly, k, error.code, signer.signedAfterAbort, s.signed().length]).toEqual([stampOnly, k, 'ABORTED', 0, 0]);
      }
    }
  });

  it('fired while the signer is resolved after the prompt: no stamp is even made, in the challenge and the stamped forms', async () => {
    for (const stampOnly of [undefined, 'quote payload']) {
      const s = answered();
      const stop = new AbortController();
      const signer = countingSigner();
      signer.watch = stop.signal;
      let asked = 0;
      const error = await walletErrorOf(
        createClient({ baseUrl: BASE, fetch: s.fetch }).signed({
          method: 'POST',
          path: '/x',
          body: {},
          getSigner: async () => {
            // The second answer (after the prompt) comes after a logout was requested.
            if (asked++ === 1) stop.abort();
            return signer;
          },
          purpose: 'p',
          signingSignal: stop.signal,
          onBeforeSign: () => true,
          ...(stampOnly === undefined ? {} : { stampOnly }),
        }),
      );
      expect(error.code).toBe('ABORTED');
      expect(asked).toBe(2);
      expect([signer.signed, signer.signedAfterAbort]).toEqual([0, 0]);
      expect(s.signed()).toEqual([]);
    }
  });
});
