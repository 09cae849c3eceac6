// Property tests of the transport against a fake server answering generated bodies: 202 challenge
// bodies (signed-retry engine) and error / success bodies (plain requests). 10,000 each through an
// in-process fetch, plus 1,000 each over real HTTP from a server on 127.0.0.1. The transport only
// throws WalletErrors; a challenge it answers was a real one and its stamp verifies (checked with
// the sandbox's own verifier); an error carries the status and exactly the code the body names.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSessionKey, type SessionKey } from '../../src/crypto/index.js';
import { createClient, type Client } from '../../src/transport/index.js';
import { parseStamp as sandboxParseStamp } from '../../src/sandbox/stamp.js';
import { verifyDer } from '../../src/sandbox/crypto/p256.js';
import { arbitraryText, mutateJsonObject, mutateString } from './helpers/mutate.js';
import { HTTP_RUNS, PROPERTY_TIMEOUT_MS, RUNS, Tally, asyncOutcome, report } from './helpers/outcome.js';

/** Over real HTTP the same rules are checked on fewer inputs (the 10,000 go through the in-process fetch). */
const TRANSPORT_HTTP_RUNS = Math.ceil(HTTP_RUNS / 2);

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

interface Seen {
  signature: string | null;
  requestId: string | null;
  body: string | null;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** An in-process fetch: unsigned requests get `first`, signed ones `retry`. */
function fakeFetch(seen: Seen[], first: () => Answer, retry: () => Answer): typeof fetch {
  return async (_input, init) => {
    const headers = new Headers(init?.headers);
    seen.push({ signature: headers.get('Service-Wallet-Signature'), requestId: headers.get('Request-Id'), body: typeof init?.body === 'string' ? init.body : null });
    const a = headers.has('Service-Wallet-Signature') ? retry() : first();
    return new Response(NULL_BODY.has(a.status) ? null : a.body, { status: a.status, headers: a.headers });
  };
}

// ---- generated answers ----

const seedChallenge = {
  payloadToSign: JSON.stringify({ type: 'ACTIVITY_TYPE_UPDATE_INTERNAL_ACCOUNT', requestId: 'Request:6f1d', timestampMs: '1760000000000', parameters: {} }),
  requestId: 'Request:6f1d0c2e-8a3b-4c5d-9e6f-7a8b9c0d1e2f',
  expiresAt: '2099-01-01T00:00:00.000Z',
};

const printable = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzGMT0123456789 ,:-'.split('')), maxLength: 40 });
const dateHeader = fc.oneof(
  fc.constant(undefined),
  fc.constant('now'),
  fc.constant('Thu, 01 Jan 1970 00:00:00 GMT'),
  fc.constant('Fri, 01 Jan 2100 00:00:00 GMT'),
  printable,
);

function headersOf(date: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { 'Content-Type': 'application/json', ...extra };
  if (date !== undefined) h.Date = date === 'now' ? new Date().toUTCString() : date;
  return h;
}

const challengeBody = fc.oneof(
  { weight: 4, arbitrary: mutateJsonObject(seedChallenge) },
  { weight: 3, arbitrary: mutateString(JSON.stringify(seedChallenge)) },
  { weight: 1, arbitrary: fc.constant(JSON.stringify(seedChallenge)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.oneof(arbitraryText, fc.constantFrom('', '<html><body>502 Bad Gateway</body></html>', 'null', '[]')) },
);
const challengeAnswer = fc.record({ body: challengeBody, date: dateHeader }).map(({ body, date }): Answer => ({ status: 202, body, headers: headersOf(date) }));

const seedErrors = [
  { code: 'WALLET_SIGNATURE_INVALID', reason: 'The signature does not verify', details: { cause: 'SIGNATURE_MISMATCH' } },
  { status: 400, code: 'INVALID_INPUT', message: 'bad field', details: { errors: [{ field: 'x', constraint: 'FORMAT', message: 'm' }] } },
  { code: 'RATE_LIMITED', reason: 'slow down' },
];
const errorBody = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...seedErrors).chain((e) => mutateJsonObject(e)) },
  { weight: 2, arbitrary: fc.constantFrom(...seedErrors).chain((e) => mutateString(JSON.stringify(e))) },
  { weight: 1, arbitrary: fc.constantFrom(...seedErrors).map((e) => JSON.stringify(e)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: fc.oneof(arbitraryText, fc.constantFrom('', '<!doctype html><title>502</title>', 'upstream connect error')) },
);
const anyStatus = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 400, max: 599 }) },
  { weight: 1, arbitrary: fc.constantFrom(429, 401, 404, 500, 502, 503, 504) },
  { weight: 2, arbitrary: fc.constantFrom(200, 201, 203, 204, 205, 206) },
  { weight: 1, arbitrary: fc.constantFrom(300, 301, 302, 304, 307, 308) },
);
const plainAnswer = fc
  .record({ status: anyStatus, body: errorBody, retryAfter: fc.option(fc.oneof(fc.constantFrom('0', '1', '120'), printable)) })
  .map(({ status, body, retryAfter }): Answer => ({ status, body, headers: headersOf(undefined, retryAfter === null ? {} : { 'Retry-After': retryAfter }) }));

// ---- the oracles ----

/** The text `response.text()` gives for a body sent as `text`: UTF-8 there and back (lone surrogates
 * become U+FFFD) and a leading byte order mark dropped (Fetch's "UTF-8 decode"), as TextDecoder does. */
function wire(text: string): string {
  return new TextDecoder().decode(Buffer.from(text, 'utf8'));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The challenge the wire reference defines, if `text` is one. */
function validChallenge(text: string): { payloadToSign: string; requestId: string } | undefined {
  const parsed = parseJson(text);
  if (!parsed || !isRecord(parsed.value)) return undefined;
  const { payloadToSign, requestId, expiresAt } = parsed.value;
  if (typeof payloadToSign !== 'string' || payloadToSign === '' || typeof requestId !== 'string' || requestId === '') return undefined;
  // The request id must be sendable back as the Request-Id header.
  if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(requestId) || requestId !== requestId.trim()) return undefined;
  if (typeof expiresAt !== 'string' || !Number.isFinite(Date.parse(expiresAt))) return undefined;
  return { payloadToSign, requestId };
}

/** The code a non-2xx answer must give (wire reference §9 and transport/errors.ts). */
function expectedCode(status: number, text: string): string {
  const parsed = text === '' ? undefined : parseJson(text);
  if (parsed && isRecord(parsed.value) && typeof parsed.value.code === 'string' && parsed.value.code !== '') return parsed.value.code;
  return status === 429 ? 'RATE_LIMITED' : 'BAD_RESPONSE';
}

/** Checks one signed call's outcome against the generated 202 answer. */
function checkSigned(result: Awaited<ReturnType<typeof asyncOutcome>>, answer: Answer, seen: Seen[], sentBody: string): void {
  const challenge = validChallenge(wire(answer.body));
  if (result.ok) {
    expect(challenge, `accepted a challenge that is not one: ${answer.body}`).toBeDefined();
    expect(result.value).toEqual({ id: 'Done:1' });
    const retry = seen.find((s) => s.signature !== null)!;
    expect(retry.requestId).toBe(challenge!.requestId);
    expect(seen.every((s) => s.body === sentBody)).toBe(true);
    const parsed = sandboxParseStamp(retry.signature!);
    expect(verifyDer(parsed.publicKey.uncompressedBytes, parsed.signature, Buffer.from(challenge!.payloadToSign, 'utf8'))).toBe(true);
    return;
  }
  expect(result.code === 'BAD_RESPONSE' || (result.code === 'CHALLENGE_EXPIRED' && challenge !== undefined), `${result.code} for ${answer.body}`).toBe(true);
  if (result.code === 'BAD_RESPONSE') expect(challenge).toBeUndefined();
}

/** Checks one plain request's outcome against the generated answer. */
function checkPlain(result: Awaited<ReturnType<typeof asyncOutcome>>, answer: Answer, body: string, overHttp = false): void {
  if (overHttp && answer.status === 407) {
    // fetch turns a 407 (proxy authentication) into a network error (Fetch standard, HTTP-network-or-cache fetch).
    expect(result.ok ? 'ok' : result.code).toBe('NETWORK_ERROR');
    return;
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.status === 204 || answer.status === 205) {
      expect(result).toEqual({ ok: true, value: undefined });
      return;
    }
    const parsed = body === '' ? undefined : parseJson(body);
    if (parsed) expect(result).toEqual({ ok: true, value: parsed.value });
    else expect(result.ok ? 'ok' : [result.code, result.status]).toEqual(['BAD_RESPONSE', answer.status]);
    return;
  }
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.code).toBe(expectedCode(answer.status, body));
    expect(result.status).toBe(answer.status);
  }
}

const fast = { maxRateLimitRetries: 0, maxProcessingResends: 0, processingBackoffMs: 0, timeoutMs: 5_000 };
let key: SessionKey;
beforeAll(async () => {
  key = await generateSessionKey();
});

describe('transport against generated answers (in-process fetch)', () => {
  it(`${RUNS} generated 202 bodies → a verified retry only for a real challenge, else BAD_RESPONSE / CHALLENGE_EXPIRED`, async () => {
    const tally = new Tally();
    const seen: Seen[] = [];
    let answer: Answer | undefined;
    const done: Answer = { status: 200, body: '{"id":"Done:1"}', headers: headersOf('now') };
    const client = createClient({ baseUrl: 'http://fake.test/2025-10-13', fetch: fakeFetch(seen, () => answer!, () => done), ...fast });
    await fc.assert(
      fc.asyncProperty(challengeAnswer, async (generated) => {
        seen.length = 0;
        answer = generated;
        const body = { privateEnabled: true };
        const result = await asyncOutcome(() => client.signed({ method: 'PATCH', path: '/internal-accounts/x', body, signer: key, purpose: 'fuzz' }));
        tally.add(result);
        checkSigned(result, generated, seen, JSON.stringify(body));
      }),
      { numRuns: RUNS },
    );
    report('transport 202 bodies (fetch)', tally);
    for (const code of ['ok', 'BAD_RESPONSE', 'CHALLENGE_EXPIRED']) expect(tally.has(code), tally.toString()).toBe(true);
  }, PROPERTY_TIMEOUT_MS);

  it(`${RUNS} generated statuses and bodies → the parsed body for 2xx, else a WalletError with the status and the body's code`, async () => {
    const tally = new Tally();
    let current: Answer | undefined;
    const client = createClient({ baseUrl: 'http://fake.test/2025-10-13', fetch: fakeFetch([], () => current!, () => current!), ...fast });
    await fc.assert(
      fc.asyncProperty(plainAnswer, async (answer) => {
        current = answer;
        const result = await asyncOutcome(() => client.request({ method: 'GET', path: '/auth/sessions', query: { accountId: 'InternalAccount:x' } }));
        tally.add(result);
        checkPlain(result, answer, NULL_BODY.has(answer.status) ? '' : wire(answer.body));
      }),
      { numRuns: RUNS },
    );
    report('transport error bodies (fetch)', tally);
    for (const code of ['ok', 'BAD_RESPONSE', 'RATE_LIMITED', 'INVALID_INPUT']) expect(tally.has(code), tally.toString()).toBe(true);
  }, PROPERTY_TIMEOUT_MS);
});

describe('transport against generated answers (real HTTP on 127.0.0.1)', () => {
  let server: Server;
  let baseUrl: string;
  let next: { first: Answer; retry: Answer } | undefined;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const signature = req.headers['service-wallet-signature'];
        const requestId = req.headers['request-id'];
        seen.push({ signature: typeof signature === 'string' ? signature : null, requestId: typeof requestId === 'string' ? requestId : null, body: chunks.length ? Buffer.concat(chunks).toString('utf8') : null });
        const a = signature !== undefined ? next!.retry : next!.first;
        res.writeHead(a.status, a.headers);
        res.end(NULL_BODY.has(a.status) ? undefined : a.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/2025-10-13`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it(`${TRANSPORT_HTTP_RUNS} generated 202 bodies over HTTP → same rules`, async () => {
    const tally = new Tally();
    const client: Client = createClient({ baseUrl, ...fast });
    await fc.assert(
      fc.asyncProperty(challengeAnswer, async (answer) => {
        seen.length = 0;
        next = { first: answer, retry: { status: 200, body: '{"id":"Done:1"}', headers: headersOf('now') } };
        const body = { nickname: 'n' };
        const result = await asyncOutcome(() => client.signed({ method: 'PATCH', path: '/internal-accounts/x', body, signer: key, purpose: 'fuzz' }));
        tally.add(result);
        checkSigned(result, answer, seen, JSON.stringify(body));
      }),
      { numRuns: TRANSPORT_HTTP_RUNS },
    );
    report('transport 202 bodies (HTTP)', tally);
  }, PROPERTY_TIMEOUT_MS);

  it(`${TRANSPORT_HTTP_RUNS} generated statuses and bodies over HTTP → same rules`, async () => {
    const tally = new Tally();
    const client: Client = createClient({ baseUrl, ...fast });
    await fc.assert(
      fc.asyncProperty(plainAnswer, async (answer) => {
        next = { first: answer, retry: answer };
        const result = await asyncOutcome(() => client.request({ method: 'GET', path: '/auth/credentials' }));
        tally.add(result);
        checkPlain(result, answer, NULL_BODY.has(answer.status) ? '' : wire(answer.body), true);
      }),
      { numRuns: TRANSPORT_HTTP_RUNS },
    );
    report('transport error bodies (HTTP)', tally);
  }, PROPERTY_TIMEOUT_MS);
});
