// Faults on demand (src/sandbox/faults.ts): the sandbox answers PROCESSING, 5xx, 429, slowly or not
// at all when asked, over HTTP and through the options; then the library's resend, backoff and
// timeout paths against them (Node).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { type Admin, codeOf, emailLogin, errorOf, startTestSandbox, testWallet } from '../flows/helpers/sandbox.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { createCustomer, otpLogin } from './helpers/flows.js';
import { Api, enc, start } from './helpers/http.js';
import { stamp } from './helpers/keys.js';

describe('arming faults', () => {
  let api: Api;
  beforeAll(async () => {
    api = await start({ faults: [{ kind: 'rate-limit', path: '/customers', method: 'GET', retryAfterSeconds: 7 }] });
  });
  afterAll(() => api.sandbox.close());

  it('from the options: the next matching answer is the fault, then the route answers again', async () => {
    const limited = await api.get('/customers');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.json.code).toBe('RATE_LIMITED');
    expect((await api.get('/customers')).status).toBe(200);
  });

  it('over HTTP: POST /sandbox/faults arms, GET lists with uses left, DELETE disarms; bad specs → 400 naming the field', async () => {
    const armed = await api.post('/sandbox/faults', { kind: 'error', path: '/customers/:id', status: 503, times: 2 });
    expect(armed.status, armed.text).toBe(201);
    expect(armed.json).toMatchObject({ kind: 'error', path: '/customers/:id', status: 503, times: 2, left: 2 });
    const w = await createCustomer(api);
    const first = await api.get(`/customers/${enc(w.customer.id)}`);
    expect([first.status, first.json.code]).toEqual([503, 'INTERNAL_ERROR']);
    expect((await api.get('/sandbox/faults')).json.data).toEqual([expect.objectContaining({ left: 1 })]);
    expect((await api.delete('/sandbox/faults')).status).toBe(204);
    expect((await api.get(`/customers/${enc(w.customer.id)}`)).status).toBe(200);
    for (const [bad, field] of [
      [{ kind: 'explode', path: '/x' }, 'kind'],
      [{ kind: 'delay', path: '/x' }, 'ms'],
      [{ kind: 'error', path: 'x' }, 'path'],
      [{ kind: 'processing', path: '/x', status: 500 }, 'status'],
      [{ kind: 'drop', path: '/x', times: 0 }, 'times'],
      [{ kind: 'drop', path: '/x', colour: 'red' }, 'colour'],
    ] as const) {
      const r = await api.post('/sandbox/faults', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.json.details.errors[0].field).toBe(field);
    }
    await expect(startSandbox({ log: false, faults: [{ kind: 'nope' as never, path: '/x' }] })).rejects.toSatisfy((e) => isWalletError(e, 'INVALID_ARGUMENT'));
  });

  it('PROCESSING on a signed retry leaves the request unhandled: the identical resend succeeds', async () => {
    const w = await createCustomer(api);
    const { key } = await otpLogin(api, w.email.id);
    api.sandbox.faults.add({ kind: 'processing', path: '/internal-accounts/*', method: 'PATCH', signed: true, times: 2 });
    const path = `/internal-accounts/${enc(w.wallet.id)}`;
    const first = await api.patch(path, { privateEnabled: true });
    expect(first.status).toBe(202);
    const headers = { 'Service-Wallet-Signature': stamp(first.json.payloadToSign, key), 'Request-Id': first.json.requestId };
    for (let i = 0; i < 2; i++) expect((await api.patch(path, { privateEnabled: true }, { headers })).json).toEqual({ status: 'PROCESSING' });
    const done = await api.patch(path, { privateEnabled: true }, { headers });
    expect(done.status, done.text).toBe(200);
    expect(done.json.privateEnabled).toBe(true);
  });

  it('delay answers late but handles the request; drop closes the connection; /sandbox routes never match', async () => {
    api.sandbox.faults.add({ kind: 'delay', path: '/customers', method: 'POST', ms: 300 });
    const t0 = Date.now();
    const slow = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${randomUUID()}` });
    expect(slow.status).toBe(201);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    api.sandbox.faults.add({ kind: 'drop', path: '/**' });
    expect((await api.get('/sandbox/clock')).status).toBe(200);
    await expect(fetch(`${api.url}/customers`, { headers: { Authorization: `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}` } })).rejects.toThrow();
    expect(api.sandbox.faults.list()).toEqual([]);
  });
});

describe("the library's resend, backoff and timeout paths against faults", () => {
  let sandbox: RunningSandbox;
  let admin: Admin;
  beforeAll(async () => {
    ({ sandbox, admin } = await startTestSandbox());
  });
  afterAll(() => sandbox.close());

  async function loggedIn() {
    const customer = await admin.customer();
    const t = testWallet(sandbox);
    await emailLogin(t.wallet, customer.accountId);
    return { customer, ...t };
  }

  it('200 PROCESSING on the signed leg: resent identically until it is handled (one signature)', async () => {
    const { customer, wallet, requests } = await loggedIn();
    sandbox.faults.add({ kind: 'processing', path: '/internal-accounts/:id', method: 'PATCH', signed: true, times: 3 });
    const from = requests.length;
    const account = await wallet.updateAccount(customer.accountId, { privateEnabled: true });
    expect(account.id).toBe(customer.accountId);
    const legs = requests.slice(from).map((r) => [r.leg, r.signed, r.status, r.attempt]);
    expect(legs).toEqual([
      [1, false, 202, 1],
      [2, true, 200, 2],
      [2, true, 200, 3],
      [2, true, 200, 4],
      [2, true, 200, 5],
    ]);
    wallet.dispose();
  });

  it('PROCESSING more times than the resend budget (5): STILL_PROCESSING', async () => {
    const { customer, wallet } = await loggedIn();
    sandbox.faults.add({ kind: 'processing', path: '/internal-accounts/:id', method: 'PATCH', signed: true, times: 6 });
    expect(await codeOf(wallet.updateAccount(customer.accountId, { privateEnabled: true }))).toBe('STILL_PROCESSING');
    sandbox.faults.clear();
    wallet.dispose();
  });

  it('429 with Retry-After 1: waits about a second and sends the same request again', async () => {
    const { wallet, requests } = await loggedIn();
    sandbox.faults.add({ kind: 'rate-limit', path: '/auth/credentials', method: 'GET', retryAfterSeconds: 1 });
    const from = requests.length;
    const t0 = Date.now();
    expect((await wallet.listCredentials()).length).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(requests.slice(from).map((r) => r.status)).toEqual([429, 200]);
    wallet.dispose();
  });

  it('429 with a Retry-After longer than the library waits (60 s): RATE_LIMITED at once; more 429s than its budget too', async () => {
    const { wallet } = await loggedIn();
    sandbox.faults.add({ kind: 'rate-limit', path: '/auth/credentials', method: 'GET', retryAfterSeconds: 60 });
    const t0 = Date.now();
    const error = await errorOf(wallet.listCredentials());
    expect(error.code).toBe('RATE_LIMITED');
    expect(Date.now() - t0).toBeLessThan(2000);
    sandbox.faults.add({ kind: 'rate-limit', path: '/auth/credentials', method: 'GET', retryAfterSeconds: 0, times: 3 });
    expect(await codeOf(wallet.listCredentials())).toBe('RATE_LIMITED');
    sandbox.faults.clear();
    wallet.dispose();
  });

  it('5xx: the error with its status and code, not retried', async () => {
    const { wallet, requests } = await loggedIn();
    sandbox.faults.add({ kind: 'error', path: '/auth/sessions', method: 'GET', status: 503 });
    const from = requests.length;
    const error = await errorOf(wallet.listSessions());
    expect(error.status).toBe(503);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(requests.slice(from).map((r) => r.status)).toEqual([503]);
    expect((await wallet.listSessions()).length).toBe(1);
    wallet.dispose();
  });

  it('a slow answer past timeoutMs: TIMEOUT; a dropped connection: NETWORK_ERROR', async () => {
    const customer = await admin.customer();
    // The timeout must pass every ordinary request of a busy machine (the login's), and the delay
    // must outlast it by far: the answer comes long after the test has its TIMEOUT.
    const { wallet } = testWallet(sandbox, { timeoutMs: 5_000 });
    await emailLogin(wallet, customer.accountId);
    sandbox.faults.add({ kind: 'delay', path: '/auth/sessions', method: 'GET', ms: 60_000 });
    expect(await codeOf(wallet.listSessions())).toBe('TIMEOUT');
    sandbox.faults.add({ kind: 'drop', path: '/auth/sessions', method: 'GET' });
    expect(await codeOf(wallet.listSessions())).toBe('NETWORK_ERROR');
    expect((await wallet.listSessions()).length).toBe(1);
    wallet.dispose();
  });
});

describe('hold: an answer on its way until the test releases it', () => {
  let api: Api;
  beforeAll(async () => {
    api = await start();
  });
  afterAll(() => api.sandbox.close());

  /** Polls the listed faults until `ready` (a state, not a pause). */
  async function until(ready: (listed: Awaited<ReturnType<Api['get']>>['json']) => boolean): Promise<void> {
    for (;;) {
      const listed = await api.get('/sandbox/faults');
      if (ready(listed.json)) return;
      await new Promise((r) => setImmediate(r));
    }
  }

  it('handles the request, holds its answer (listed with held 1) until POST /sandbox/faults/{id}/release', async () => {
    const armed = await api.post('/sandbox/faults', { kind: 'hold', path: '/customers', method: 'POST' });
    expect(armed.status, armed.text).toBe(201);
    expect(armed.json).toMatchObject({ kind: 'hold', left: 1, held: 0 });
    const platformCustomerId = `pc-${randomUUID()}`;
    let answered = false;
    const call = api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId }).then((a) => ((answered = true), a));
    await until((j) => j.data[0]?.held === 1);
    // The work is done (the customer exists), the answer not sent.
    const made = await api.get(`/customers?platformCustomerId=${enc(platformCustomerId)}`);
    expect(made.json.data.map((c: { platformCustomerId: string }) => c.platformCustomerId)).toEqual([platformCustomerId]);
    expect(answered).toBe(false);
    // Other requests of the route are not held (its one use is spent).
    expect((await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `pc-${randomUUID()}` })).status).toBe(201);
    const released = await api.post(`/sandbox/faults/${armed.json.id}/release`);
    expect(released.status, released.text).toBe(200);
    const answer = await call;
    expect([answer.status, answer.json.platformCustomerId]).toEqual([201, platformCustomerId]);
    expect((await api.get('/sandbox/faults')).json.data).toEqual([]);
    // Nothing to release any more: 404, as for a number never armed or not a number.
    for (const id of [armed.json.id, 999, 'x']) expect((await api.post(`/sandbox/faults/${id}/release`)).json.code).toBe('NOT_FOUND');
  });

  it('releases on its own after ms; clear() sends every held answer; ms only for delay and hold', async () => {
    api.sandbox.faults.add({ kind: 'hold', path: '/customers', method: 'GET', ms: 50 });
    expect((await api.get('/customers')).status).toBe(200);
    const held = api.sandbox.faults.add({ kind: 'hold', path: '/customers', method: 'GET', times: 2 });
    const calls = [api.get('/customers'), api.get('/customers')];
    await until((j) => j.data[0]?.held === 2);
    expect(api.sandbox.faults.list()).toEqual([expect.objectContaining({ id: held.id, left: 0, held: 2 })]);
    api.sandbox.faults.clear();
    expect((await Promise.all(calls)).map((a) => a.status)).toEqual([200, 200]);
    expect(api.sandbox.faults.release(held.id)).toBeUndefined();
    for (const bad of [{ kind: 'hold', path: '/x', ms: -1 }, { kind: 'hold', path: '/x', ms: 120_001 }, { kind: 'drop', path: '/x', ms: 5 }]) {
      const r = await api.post('/sandbox/faults', bad);
      expect([r.status, r.json.details.errors[0].field], JSON.stringify(bad)).toEqual([400, 'ms']);
    }
  });
});
