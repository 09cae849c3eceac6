import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type RequestLogEntry, type SignRequest } from '../../src/transport/index.js';
import { generateSessionKey, signerFromKey, type SessionKey, type Signer } from '../../src/crypto/index.js';
import { WalletError } from '../../src/errors.js';
import { walletErrorOf } from '../helpers/errors.js';
import { flush, until } from '../helpers/wait-for.js';
import { signedService, startFakeServer, verifyStampWithNode, type FakeServer, type SignedServiceOptions } from './fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

let key: SessionKey;
beforeAll(async () => {
  key = await generateSessionKey();
});

async function serveSigned(options: SignedServiceOptions = {}) {
  const service = signedService(options);
  const server = await startFakeServer(service.handler);
  servers.push(server);
  return { service, server };
}

const PATH = '/internal-accounts/InternalAccount:1';

describe('signed(): the signed-retry engine', () => {
  it('completes a two-leg action in exactly 2 requests with a stamp that verifies in node:crypto', async () => {
    const { service, server } = await serveSigned();
    const log: RequestLogEntry[] = [];
    const shown: SignRequest[] = [];
    const client = createClient({ baseUrl: server.url, onRequest: (e) => log.push(e) });
    const result = await client.signed<{ id: string }>({
      method: 'PATCH',
      path: PATH,
      body: { privateEnabled: true },
      signer: key,
      purpose: 'update-internal-account',
      onBeforeSign: (r) => {
        shown.push(r);
      },
    });
    expect(result).toEqual({ id: 'InternalAccount:1', privateEnabled: true });
    expect(server.received).toHaveLength(2);
    const [first, second] = server.received;
    expect(first?.headers['service-wallet-signature']).toBeUndefined();
    expect(first?.headers['request-id']).toBeUndefined();
    expect(second?.headers['request-id']).toBe(service.challenges[0]?.requestId);
    const check = verifyStampWithNode(second!.headers['service-wallet-signature'] as string, service.challenges[0]!.payloadToSign);
    expect(check).toEqual({ ok: true, publicKey: key.publicKeyHex });
    expect(shown).toEqual([
      {
        payloadToSign: service.challenges[0]!.payloadToSign,
        method: 'PATCH',
        path: PATH,
        purpose: 'update-internal-account',
        leg: 2,
        requestId: service.challenges[0]!.requestId,
        expiresAt: service.challenges[0]!.expiresAt,
        automatic: false,
        signal: expect.any(AbortSignal),
      },
    ]);
    expect(log.map((e) => [e.leg, e.attempt, e.status, e.signed])).toEqual([[1, 1, 202, false], [2, 2, 200, true]]);
  });

  it('sends byte-identical bodies on every leg (raw bytes as received by the server)', async () => {
    const { server } = await serveSigned({ legs: 3 });
    const client = createClient({ baseUrl: server.url });
    // Key order, unicode and numbers that a re-serialisation could disturb.
    const body = { nickname: 'carte bleue – ünï 💳', internalAccountId: 'InternalAccount:1', cardId: 'Card:1', amount: 1e21, nested: { z: 1, a: [0.1, -0] } };
    await client.signed({ method: 'POST', path: '/auth/delegated-keys', body, signer: key, purpose: 'create-delegated-key', challenges: 2 });
    const bodies = server.received.map((r) => r.body);
    expect(bodies).toHaveLength(3);
    expect(bodies[0]!.length).toBeGreaterThan(0);
    expect(bodies[1]!.equals(bodies[0]!)).toBe(true);
    expect(bodies[2]!.equals(bodies[0]!)).toBe(true);
    expect(bodies[0]!.toString('utf8')).toBe(JSON.stringify(body));
  });

  it('completes the three-leg delegated-key creation in exactly 3 requests, same key, new request id, same Idempotency-Key', async () => {
    const { service, server } = await serveSigned({
      legs: 3,
      final: { status: 201, body: { id: 'DelegatedKey:1', status: 'ACTIVE', publicKey: '02ab' } },
    });
    const hookLegs: number[] = [];
    const client = createClient({ baseUrl: server.url, onBeforeSign: (r) => void hookLegs.push(r.leg) });
    const result = await client.signed({
      method: 'POST',
      path: '/auth/delegated-keys',
      body: { cardId: 'Card:1', internalAccountId: 'InternalAccount:1', nickname: 'card' },
      getSigner: () => key,
      purpose: 'create-delegated-key',
      challenges: 2,
      idempotencyKey: 'idem-42',
    });
    expect(result).toEqual({ id: 'DelegatedKey:1', status: 'ACTIVE', publicKey: '02ab' });
    expect(server.received).toHaveLength(3);
    expect(service.challenges).toHaveLength(2);
    expect(server.received.map((r) => r.headers['request-id'])).toEqual([undefined, service.challenges[0]!.requestId, service.challenges[1]!.requestId]);
    expect(service.stamps.map((s) => [s.ok, s.publicKey])).toEqual([[true, key.publicKeyHex], [true, key.publicKeyHex]]);
    expect(server.received.map((r) => r.headers['idempotency-key'])).toEqual(['idem-42', 'idem-42', 'idem-42']);
    expect(hookLegs).toEqual([2, 3]);
  });

  it('returns a direct 200/201 as is without asking for a key', async () => {
    const server = await startFakeServer(() => ({ status: 200, body: { id: 'Customer:1', email: 'a@b.c' } }));
    servers.push(server);
    const client = createClient({ baseUrl: server.url });
    let asked = 0;
    const result = await client.signed({
      method: 'PATCH',
      path: '/customers/Customer:1',
      body: { fullName: 'A' },
      getSigner: () => {
        asked++;
        return key;
      },
      purpose: 'update-customer',
    });
    expect(result).toEqual({ id: 'Customer:1', email: 'a@b.c' });
    expect(asked).toBe(0);
    expect(server.received).toHaveLength(1);
  });

  it('resends a 200 {"status":"PROCESSING"} leg identically (same stamp, request id, bytes)', async () => {
    let processing = 2;
    const { service, server } = await serveSigned({
      intercept: (req) => (req.headers['service-wallet-signature'] && processing-- > 0 ? { status: 200, body: { status: 'PROCESSING' } } : undefined),
    });
    const log: RequestLogEntry[] = [];
    const client = createClient({ baseUrl: server.url, processingBackoffMs: 10, onRequest: (e) => log.push(e) });
    const result = await client.signed({ method: 'PATCH', path: PATH, body: { privateEnabled: false }, signer: key, purpose: 'p' });
    expect(result).toEqual({ id: 'InternalAccount:1', privateEnabled: true });
    expect(server.received).toHaveLength(4);
    const retries = server.received.slice(1);
    for (const r of retries) {
      expect(r.headers['service-wallet-signature']).toBe(retries[0]!.headers['service-wallet-signature']);
      expect(r.headers['request-id']).toBe(service.challenges[0]!.requestId);
      expect(r.body.equals(server.received[0]!.body)).toBe(true);
    }
    expect(log.map((e) => [e.leg, e.attempt])).toEqual([[1, 1], [2, 2], [2, 3], [2, 4]]);
  });

  it('gives up on endless PROCESSING with STILL_PROCESSING; a resource in PROCESSING state (with id) is a result', async () => {
    const { server } = await serveSigned({
      intercept: (req) => (req.headers['service-wallet-signature'] ? { status: 200, body: { status: 'PROCESSING', message: 'wait' } } : undefined),
    });
    const client = createClient({ baseUrl: server.url, processingBackoffMs: 1, maxProcessingResends: 2 });
    const error = await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' }));
    expect(error.code).toBe('STILL_PROCESSING');
    expect(server.received).toHaveLength(4); // leg 1, leg 2, two resends

    const quote = await serveSigned({ final: { status: 200, body: { id: 'Quote:1', status: 'PROCESSING' } } });
    const client2 = createClient({ baseUrl: quote.server.url });
    await expect(client2.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' })).resolves.toEqual({ id: 'Quote:1', status: 'PROCESSING' });
    expect(quote.server.received).toHaveLength(2);
  });

  it('waits Retry-After on a 429 during the signed leg and resends it identically', async () => {
    let limited = false;
    const { server } = await serveSigned({
      intercept: (req) => {
        if (!req.headers['service-wallet-signature'] || limited) return undefined;
        limited = true;
        return { status: 429, body: { code: 'RATE_LIMITED', reason: 'slow' }, headers: { 'Retry-After': '1' } };
      },
    });
    const client = createClient({ baseUrl: server.url });
    await client.signed({ method: 'PATCH', path: PATH, body: { privateEnabled: true }, signer: key, purpose: 'p' });
    expect(server.received).toHaveLength(3);
    expect(server.received[2]!.headers['service-wallet-signature']).toBe(server.received[1]!.headers['service-wallet-signature']);
    expect(server.received[2]!.headers['request-id']).toBe(server.received[1]!.headers['request-id']);
  });

  it('starts over once when the challenge had already expired (server clock), then succeeds', async () => {
    const { service, server } = await serveSigned({ ttlMs: (n) => (n === 0 ? -1000 : 5 * 60_000) });
    const client = createClient({ baseUrl: server.url });
    await client.signed({ method: 'PATCH', path: PATH, body: { privateEnabled: true }, signer: key, purpose: 'p' });
    expect(server.received.map((r) => Boolean(r.headers['service-wallet-signature']))).toEqual([false, false, true]);
    expect(server.received[2]!.headers['request-id']).toBe(service.challenges[1]!.requestId);
  });

  it('fails with CHALLENGE_EXPIRED when the restarted challenge is expired too, never signing', async () => {
    const { server } = await serveSigned({ ttlMs: -1000 });
    let hooked = 0;
    const client = createClient({ baseUrl: server.url, onBeforeSign: () => void hooked++ });
    const error = await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' }));
    expect(error.code).toBe('CHALLENGE_EXPIRED');
    expect(server.received).toHaveLength(2);
    expect(server.received.every((r) => r.headers['service-wallet-signature'] === undefined)).toBe(true);
    expect(hooked).toBe(0);
  });

  it.each([
    ["the refusal's Date header", false],
    ['the local clock (no Date header)', true],
  ])('starts over once when the signed leg is refused after expiresAt, judged by %s: the service explains nothing', async (_label, noDate) => {
    let offset = 0;
    let rejected = false;
    const { server } = await serveSigned({
      noDate,
      // Server and client clocks move together: the signed leg arrives 6 minutes late.
      serverNow: () => Date.now() + offset,
      intercept: (req) => {
        if (!req.headers['service-wallet-signature'] || rejected) return undefined;
        rejected = true;
        offset += 6 * 60_000;
        return { status: 401, body: { status: 401, code: 'WALLET_SIGNATURE_INVALID', message: 'invalid' } };
      },
    });
    await createClient({ baseUrl: server.url, now: () => Date.now() + offset }).signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' });
    expect(server.received.map((r) => Boolean(r.headers['service-wallet-signature']))).toEqual([false, true, false, true]);
  });

  it('a signed leg refused before expiresAt is a real signature failure: no restart, whatever the details say', async () => {
    const { server } = await serveSigned({
      intercept: (req) =>
        req.headers['service-wallet-signature'] ? { status: 401, body: { code: 'WALLET_SIGNATURE_INVALID', reason: 'bad', details: { requestStatus: 'EXPIRED' } } } : undefined,
    });
    const error = await walletErrorOf(createClient({ baseUrl: server.url }).signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' }));
    expect(error.code).toBe('WALLET_SIGNATURE_INVALID');
    expect(server.received).toHaveLength(2);
  });

  it('restartOnExpiry: false → CHALLENGE_EXPIRED at once, leg 1 is never sent again', async () => {
    const { server } = await serveSigned({ ttlMs: (n) => (n === 0 ? -1000 : 5 * 60_000) });
    const error = await walletErrorOf(
      createClient({ baseUrl: server.url }).signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', restartOnExpiry: false }),
    );
    expect(error.code).toBe('CHALLENGE_EXPIRED');
    expect(server.received).toHaveLength(1);
  });

  it('restarts when the challenge expired while onBeforeSign waited for the user', async () => {
    let offset = 0;
    const { server } = await serveSigned();
    let calls = 0;
    const client = createClient({
      baseUrl: server.url,
      now: () => Date.now() + offset,
      onBeforeSign: () => {
        // The first time, the user takes 6 minutes to approve (the challenge lives 5).
        if (calls++ === 0) offset += 6 * 60_000;
        return true;
      },
    });
    await client.signed({ method: 'PATCH', path: PATH, body: { privateEnabled: true }, signer: key, purpose: 'p' });
    expect(calls).toBe(2);
    expect(server.received.map((r) => Boolean(r.headers['service-wallet-signature']))).toEqual([false, false, true]);
  });

  it.each([
    ['10 minutes ahead', 10 * 60_000],
    ['10 minutes behind', -10 * 60_000],
  ])('works with a client clock %s of the server', async (_label, skew) => {
    const { server } = await serveSigned();
    const client = createClient({ baseUrl: server.url, now: () => Date.now() + skew });
    await client.signed({ method: 'PATCH', path: PATH, body: { privateEnabled: true }, signer: key, purpose: 'p' });
    expect(server.received).toHaveLength(2);
  });

  it('works with a server clock an hour off the client; without a Date header the server judges expiry', async () => {
    const behind = await serveSigned({ serverNow: () => Date.now() - 3_600_000 });
    await createClient({ baseUrl: behind.server.url }).signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' });
    expect(behind.server.received).toHaveLength(2);

    const noDate = await serveSigned({ noDate: true });
    const skewed = createClient({ baseUrl: noDate.server.url, now: () => Date.now() + 10 * 60_000 });
    await skewed.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' });
    expect(noDate.server.received).toHaveLength(2);
    expect(noDate.server.received[0]!.headers.date).toBeUndefined();
  });

  it('SIGNING_REFUSED when onBeforeSign returns false or throws; nothing signed is sent', async () => {
    const { server } = await serveSigned();
    const client = createClient({ baseUrl: server.url });
    const refused = await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', onBeforeSign: () => false }));
    expect(refused.code).toBe('SIGNING_REFUSED');
    const reason = new Error('user said no');
    const thrown = await walletErrorOf(
      client.signed({
        method: 'PATCH',
        path: PATH,
        body: {},
        signer: key,
        purpose: 'p',
        onBeforeSign: async () => {
          throw reason;
        },
      }),
    );
    expect(thrown.code).toBe('SIGNING_REFUSED');
    expect(thrown.cause).toBe(reason);
    expect(server.received).toHaveLength(2);
    expect(server.received.every((r) => r.headers['service-wallet-signature'] === undefined)).toBe(true);
  });

  it('onBeforeSign waits are bounded: a prompt that never answers fails that call only, its signal aborts', async () => {
    const { server } = await serveSigned();
    const signals: AbortSignal[] = [];
    const client = createClient({ baseUrl: server.url, onBeforeSignTimeoutMs: 50, automaticSignTimeoutMs: 20 });
    const started = Date.now();
    const timedOut = await walletErrorOf(
      client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', onBeforeSign: ({ signal }) => (signals.push(signal), new Promise<boolean>(() => undefined)) }),
    );
    expect(timedOut.code).toBe('SIGNING_REFUSED');
    expect(timedOut.details).toEqual({ timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(signals[0]?.aborted).toBe(true);
    // The automatic bound applies to signatures the library makes on its own.
    const automatic = await walletErrorOf(
      client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', automatic: true, onBeforeSign: (r) => (r.automatic ? new Promise<boolean>(() => undefined) : true) }),
    );
    expect(automatic.details).toEqual({ timeoutMs: 20 });
    // The next call is not affected; a late "yes" from the first prompt changed nothing.
    await client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', onBeforeSign: () => true });
    expect(server.received.filter((r) => r.headers['service-wallet-signature'] !== undefined)).toHaveLength(1);
    for (const bad of [0, -1, Number.POSITIVE_INFINITY, '5']) {
      expect(() => createClient({ baseUrl: server.url, onBeforeSignTimeoutMs: bad as never })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('signingSignal cancels a pending prompt (ABORTED) and any signature not yet sent', async () => {
    const { server } = await serveSigned();
    const client = createClient({ baseUrl: server.url });
    const cancel = new AbortController();
    let promptSignal: AbortSignal | undefined;
    const pending = walletErrorOf(
      client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', signingSignal: cancel.signal, onBeforeSign: ({ signal }) => {
        promptSignal = signal;
        return new Promise<boolean>(() => undefined);
      } }),
    );
    // The prompt is open (the library waits on it): the logout comes.
    await until(() => promptSignal !== undefined, 'the prompt');
    await flush();
    cancel.abort(new WalletError('NOT_LOGGED_IN', 'logged out'));
    const error = await pending;
    expect(error.code).toBe('NOT_LOGGED_IN');
    expect(promptSignal?.aborted).toBe(true);
    // Approved, but cancelled meanwhile: still nothing signed goes out.
    const late = new AbortController();
    const approvedLate = await walletErrorOf(
      client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', signingSignal: late.signal, onBeforeSign: () => (late.abort(), true) }),
    );
    expect(approvedLate.code).toBe('ABORTED');
    expect(server.received.every((r) => r.headers['service-wallet-signature'] === undefined)).toBe(true);
  });

  it('single-leg stamped form (quote execute): one request, stamp over the given payload, no Request-Id', async () => {
    const server = await startFakeServer(() => ({ status: 200, body: { id: 'Quote:1', status: 'PROCESSING' } }));
    servers.push(server);
    const payload = '{"quoteId":"Quote:1","amount":"12.00"}';
    const shown: SignRequest[] = [];
    const client = createClient({ baseUrl: server.url, signatureHeader: 'Grid-Wallet-Signature' });
    const result = await client.signed({
      method: 'POST',
      path: '/quotes/Quote:1/execute',
      signer: key,
      purpose: 'execute-quote',
      stampOnly: payload,
      idempotencyKey: 'exec-1',
      onBeforeSign: (r) => void shown.push(r),
    });
    expect(result).toEqual({ id: 'Quote:1', status: 'PROCESSING' });
    expect(server.received).toHaveLength(1);
    const [req] = server.received;
    expect(req!.headers['request-id']).toBeUndefined();
    expect(req!.headers['service-wallet-signature']).toBeUndefined();
    expect(req!.headers['idempotency-key']).toBe('exec-1');
    expect(verifyStampWithNode(req!.headers['grid-wallet-signature'] as string, payload)).toEqual({ ok: true, publicKey: key.publicKeyHex });
    expect(shown).toEqual([{ payloadToSign: payload, method: 'POST', path: '/quotes/Quote:1/execute', purpose: 'execute-quote', leg: 1, automatic: false, signal: expect.any(AbortSignal) }]);
  });

  it('sends a given Request-Id on the first leg (passkey verify)', async () => {
    const server = await startFakeServer(() => ({ status: 200, body: { id: 'Session:1' } }));
    servers.push(server);
    const client = createClient({ baseUrl: server.url });
    await client.signed({ method: 'POST', path: '/auth/credentials/AuthMethod:1/verify', body: { type: 'PASSKEY' }, requestId: 'Request:abc', getSigner: () => key, purpose: 'login' });
    expect(server.received[0]!.headers['request-id']).toBe('Request:abc');
    expect(server.received[0]!.headers['service-wallet-signature']).toBeUndefined();
  });

  it("passes the service's rejection of the signed leg through", async () => {
    const other = await generateSessionKey();
    const { server } = await serveSigned({ legs: 3 });
    const client = createClient({ baseUrl: server.url });
    // A signer that switches key after its first signature: the service refuses the third leg.
    const signers = [signerFromKey(key), signerFromKey(other)];
    let n = 0;
    const flaky: Signer = {
      get publicKeyHex() {
        return signers[Math.min(n, 1)]!.publicKeyHex;
      },
      sign: (data) => signers[Math.min(n++, 1)]!.sign(data),
    };
    const error = await walletErrorOf(client.signed({ method: 'POST', path: '/auth/delegated-keys', body: {}, signer: flaky, purpose: 'p', challenges: 2 }));
    expect([error.code, error.status]).toEqual(['WALLET_SIGNATURE_INVALID', 401]);
  });

  it('one challenge by default: a server that asks for a second gets UNEXPECTED_CHALLENGE and no second signature', async () => {
    const { service, server } = await serveSigned({ legs: 3 });
    const shown: SignRequest[] = [];
    const client = createClient({ baseUrl: server.url, onBeforeSign: (r) => void shown.push(r) });
    const error = await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: { privateEnabled: true }, signer: key, purpose: 'update-internal-account' }));
    expect([error.code, error.status]).toEqual(['UNEXPECTED_CHALLENGE', 202]);
    expect(error.details).toEqual({ purpose: 'update-internal-account', allowed: 1 });
    expect(service.challenges).toHaveLength(2); // the server did ask twice ...
    expect(service.stamps).toHaveLength(1); // ... and got one signature
    expect(shown.map((r) => r.leg)).toEqual([2]);
    expect(server.received.map((r) => Boolean(r.headers['service-wallet-signature']))).toEqual([false, true]);
  });

  it('challenges: 2 (delegated keys) answers two and refuses a third before signing it', async () => {
    const { service, server } = await serveSigned({ legs: 4 });
    const shown: number[] = [];
    const client = createClient({ baseUrl: server.url, onBeforeSign: (r) => void shown.push(r.leg) });
    const error = await walletErrorOf(client.signed({ method: 'POST', path: '/auth/delegated-keys', body: {}, signer: key, purpose: 'create-delegated-key', challenges: 2 }));
    expect(error.code).toBe('UNEXPECTED_CHALLENGE');
    expect(error.details).toEqual({ purpose: 'create-delegated-key', allowed: 2 });
    expect(service.challenges).toHaveLength(3);
    expect(service.stamps).toHaveLength(2);
    expect(shown).toEqual([2, 3]);
    expect(server.received).toHaveLength(3);
  });

  it('the stamped single-leg form answers no challenge at all', async () => {
    const challenge = { payloadToSign: 'sign me too', requestId: 'Request:1', expiresAt: new Date(Date.now() + 60_000).toISOString() };
    const server = await startFakeServer(() => ({ status: 202, body: challenge }));
    servers.push(server);
    const shown: number[] = [];
    const client = createClient({ baseUrl: server.url, onBeforeSign: (r) => void shown.push(r.leg) });
    const error = await walletErrorOf(client.signed({ method: 'POST', path: '/quotes/Quote:1/execute', body: {}, stampOnly: 'quote payload', signer: key, purpose: 'execute-quote' }));
    expect(error.code).toBe('UNEXPECTED_CHALLENGE');
    expect(error.details).toEqual({ purpose: 'execute-quote', allowed: 0 });
    expect(shown).toEqual([1]); // the quote's own payload only
    expect(server.received).toHaveLength(1);
  });

  it('INVALID_ARGUMENT for a challenge count other than 1 or 2, before any request', async () => {
    const { server } = await serveSigned();
    const client = createClient({ baseUrl: server.url });
    for (const challenges of [0, 3, 1.5]) {
      const error = await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', challenges: challenges as 1 }));
      expect(error.code).toBe('INVALID_ARGUMENT');
    }
    expect(server.received).toHaveLength(0);
  });

  it('BAD_RESPONSE for a 202 that is not a challenge', async () => {
    const server = await startFakeServer(() => ({ status: 202, body: { payloadToSign: 'x', expiresAt: new Date(Date.now() + 60_000).toISOString() } }));
    servers.push(server);
    const client = createClient({ baseUrl: server.url });
    const error = await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' }));
    expect([error.code, error.status]).toEqual(['BAD_RESPONSE', 202]);
  });

  it('SIGNER_FAILED for a signer that throws a non-WalletError; getSigner WalletErrors pass through', async () => {
    const { server } = await serveSigned();
    const client = createClient({ baseUrl: server.url });
    const broken = { publicKeyHex: key.publicKeyHex, sign: async () => { throw new TypeError('boom'); } };
    expect((await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: broken, purpose: 'p' }))).code).toBe('SIGNER_FAILED');
    const evicted = await walletErrorOf(
      client.signed({ method: 'PATCH', path: PATH, body: {}, getSigner: () => { throw new WalletError('KEY_EVICTED'); }, purpose: 'p' }),
    );
    expect(evicted.code).toBe('KEY_EVICTED');
    expect((await walletErrorOf(client.signed({ method: 'PATCH', path: PATH, body: {}, purpose: 'p' } as never))).code).toBe('INVALID_ARGUMENT');
  });
});

describe('signed(): who signs is decided after the prompt (session invariants I2, I3, I4)', () => {
  it('getSigner is asked before the prompt and again after it; the second answer signs', async () => {
    const { service, server } = await serveSigned();
    const other = await generateSessionKey();
    const calls: string[] = [];
    const client = createClient({ baseUrl: server.url });
    await client.signed({
      method: 'PATCH',
      path: PATH,
      body: { privateEnabled: true },
      getSigner: () => {
        calls.push('getSigner');
        return calls.length === 1 ? key : other;
      },
      onBeforeSign: () => void calls.push('prompt'),
      purpose: 'p',
    });
    expect(calls).toEqual(['getSigner', 'prompt', 'getSigner']);
    const check = verifyStampWithNode(server.received[1]!.headers['service-wallet-signature'] as string, service.challenges[0]!.payloadToSign);
    expect(check).toEqual({ ok: true, publicKey: other.publicKeyHex });
  });

  it('a call that cannot be signed fails before the prompt; one that can no longer be signed after it sends nothing', async () => {
    const { server } = await serveSigned();
    const client = createClient({ baseUrl: server.url });
    let prompted = 0;
    const refused = new WalletError('NOT_LOGGED_IN', 'logged out');
    await expect(client.signed({ method: 'PATCH', path: PATH, body: {}, getSigner: () => Promise.reject(refused), onBeforeSign: () => void prompted++, purpose: 'p' })).rejects.toBe(refused);
    expect(prompted).toBe(0);
    let asked = 0;
    const afterPrompt = client.signed({
      method: 'PATCH',
      path: PATH,
      body: {},
      getSigner: () => (asked++ === 0 ? key : Promise.reject(refused)),
      onBeforeSign: () => void prompted++,
      purpose: 'p',
    });
    await expect(afterPrompt).rejects.toBe(refused);
    expect(prompted).toBe(1);
    expect(server.received.filter((r) => r.headers['service-wallet-signature'] !== undefined)).toEqual([]);
  });

  it('signingSignal fired while the hook answers, or while the signer is resolved after it: ABORTED, nothing signed', async () => {
    const { server } = await serveSigned();
    const client = createClient({ baseUrl: server.url });
    const during = new AbortController();
    await expect(
      client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, signingSignal: during.signal, purpose: 'p', onBeforeSign: () => (during.abort(), true) }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    const after = new AbortController();
    let asked = 0;
    await expect(
      client.signed({
        method: 'PATCH',
        path: PATH,
        body: {},
        getSigner: () => {
          if (asked++ === 1) after.abort();
          return key;
        },
        signingSignal: after.signal,
        purpose: 'p',
        onBeforeSign: () => true,
      }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    expect(server.received.filter((r) => r.headers['service-wallet-signature'] !== undefined)).toEqual([]);
  });

  it('approved: true signs without asking onBeforeSign (a logout ending its sessions); a non-boolean is refused', async () => {
    const { server } = await serveSigned();
    let prompted = 0;
    const client = createClient({ baseUrl: server.url, onBeforeSign: () => (prompted++, false) });
    await client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, approved: true, purpose: 'delete-session' });
    expect(prompted).toBe(0);
    await expect(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, approved: false, purpose: 'p' })).rejects.toMatchObject({ code: 'SIGNING_REFUSED' });
    expect(prompted).toBe(1);
    await expect(client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, approved: 'yes' as never, purpose: 'p' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('signed(): what counts as a challenge, and as still processing', () => {
  const future = () => new Date(Date.now() + 60_000).toISOString();
  const good = () => ({ payloadToSign: '{"x":1}', requestId: 'Request:1', expiresAt: future() });

  it('a 202 that is not a usable challenge is BAD_RESPONSE and nothing is signed', async () => {
    const bad: unknown[] = [
      'text',
      [],
      { ...good(), payloadToSign: undefined },
      { ...good(), payloadToSign: '' },
      { ...good(), payloadToSign: 5 },
      { ...good(), requestId: undefined },
      { ...good(), requestId: '' },
      { ...good(), requestId: 7 },
      { ...good(), requestId: ' Request:1' },
      { ...good(), requestId: 'Request:1\nX' },
      { ...good(), expiresAt: undefined },
      { ...good(), expiresAt: 'soon' },
      { ...good(), expiresAt: 12 },
    ];
    for (const body of bad) {
      const server = await startFakeServer(() => ({ status: 202, body: body as object }));
      servers.push(server);
      let prompted = 0;
      const client = createClient({ baseUrl: server.url });
      const error = await client.signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p', onBeforeSign: () => void prompted++ }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect([body, error]).toEqual([body, expect.objectContaining({ code: 'BAD_RESPONSE', status: 202 })]);
      expect(prompted).toBe(0);
      expect(server.received).toHaveLength(1);
    }
    // The good one is answered.
    const server = await startFakeServer((req) => (req.headers['service-wallet-signature'] ? { status: 200, body: { ok: true } } : { status: 202, body: good() }));
    servers.push(server);
    expect(await createClient({ baseUrl: server.url }).signed({ method: 'PATCH', path: PATH, body: {}, signer: key, purpose: 'p' })).toEqual({ ok: true });
  });

  it('only a 200 {status: "PROCESSING"} without an id is resent; a resource in PROCESSING state is the answer', async () => {
    for (const [status, body, resent] of [
      [200, { status: 'PROCESSING' }, true],
      [200, { status: 'PROCESSING', id: 'Quote:1' }, false],
      [201, { status: 'PROCESSING' }, false],
      [200, { status: 'DONE' }, false],
      [200, ['PROCESSING'], false],
    ] as const) {
      let n = 0;
      const server = await startFakeServer(() => (n++ === 0 ? { status, body: body as object } : { status: 200, body: { final: true } }));
      servers.push(server);
      const result = await createClient({ baseUrl: server.url, processingBackoffMs: 1 }).signed({ method: 'POST', path: '/x', body: {}, signer: key, purpose: 'p' });
      expect([status, body, result]).toEqual([status, body, resent ? { final: true } : body]);
    }
  });
});
