/**
 * S13 of src/proxy/scope.ts against the real sandbox, in every profile the Vitest projects run
 * (`service`, `spec-minimal`: no `accountId` on AuthSession, no `type` on an internal account when
 * the sandbox omits it): an OTP login, the session list, a refresh and a sign-out go through a
 * proxy with `currentUser`, judged by the account the request names. Another customer's user gets
 * exactly the unknown-id answers (S11), and nothing is forwarded for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, provisionCustomer, type ProxyHandler } from '../../src/proxy/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { sealOtp } from '../sandbox/helpers/bundles.js';
import { newKey, stamp, type TestKey } from '../sandbox/helpers/keys.js';

let sandbox: RunningSandbox;
let proxy: ProxyHandler;
const service = () => ({ baseUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
let alice: { customerId: string; accountId: string };
let bob: { customerId: string; accountId: string };
let who: 'alice' | 'bob' = 'alice';
const forwarded: string[] = [];
const lines: string[] = [];

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; text: string }> {
  const response = await proxy(
    new Request(`http://app.test${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/** Two legs of a signed retry through the proxy: the challenge, then the same body stamped by `key`. */
async function signed(path: string, body: unknown, key: TestKey): Promise<{ status: number; json: any; text: string }> {
  const first = await call('POST', path, body);
  expect(first.status, first.text).toBe(202);
  return call('POST', path, body, { 'service-wallet-signature': stamp(first.json.payloadToSign, key), 'request-id': first.json.requestId });
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: false });
  const a = await provisionCustomer(service(), { platformCustomerId: 'stp-alice', email: 'stp-alice@example.com' });
  const b = await provisionCustomer(service(), { platformCustomerId: 'stp-bob', email: 'stp-bob@example.com' });
  alice = { customerId: a.customerId, accountId: a.accountId };
  bob = { customerId: b.customerId, accountId: b.accountId };
  proxy = createProxy({
    ...service(),
    logger: (line) => lines.push(line),
    fetch: (input, init) => {
      forwarded.push(`${init.method ?? 'GET'} ${input}`);
      return globalThis.fetch(input, init);
    },
    currentUser: () => (who === 'alice' ? { customerId: alice.customerId } : { customerId: bob.customerId }),
  });
});
afterAll(() => sandbox.close());

describe('OTP login, session list, refresh and sign-out through the proxy (S13)', () => {
  let credentialId: string;
  let sessionId: string;
  let key: TestKey;

  it('the wallet is found without a type field, its credential listed, an OTP login answered (not withheld)', async () => {
    who = 'alice';
    const credentials = await call('GET', `/auth/credentials?accountId=${encodeURIComponent(alice.accountId)}`);
    expect(credentials.status, credentials.text).toBe(200);
    credentialId = credentials.json.data[0].id;
    const challenge = await call('POST', `/auth/credentials/${encodeURIComponent(credentialId)}/challenge`, {});
    expect(challenge.status, challenge.text).toBe(200);
    key = newKey();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(challenge.json.otpEncryptionTargetBundle, '000000', key.compressed) };
    const session = await signed(`/auth/credentials/${encodeURIComponent(credentialId)}/verify`, body, key);
    expect(session.status, session.text).toBe(200);
    expect(typeof session.json.expiresAt).toBe('string');
    sessionId = session.json.id;
    expect(lines.join('\n')).not.toContain('ANSWER_WITHHELD');
  });

  it('the session list names it; the refresh is answered; the new session can be ended', async () => {
    const list = await call('GET', `/auth/sessions?accountId=${encodeURIComponent(alice.accountId)}`);
    expect(list.status, list.text).toBe(200);
    expect(list.json.data.map((s: { id: string }) => s.id)).toContain(sessionId);
    const next = newKey();
    const refreshed = await signed(`/auth/sessions/${encodeURIComponent(sessionId)}/refresh`, { clientPublicKey: next.compressed }, key);
    expect([200, 201], refreshed.text).toContain(refreshed.status);
    const fresh = refreshed.json.id as string;
    expect(fresh).not.toBe(sessionId);
    // The refreshed session was learnt from the checked answer: ending it needs no listing.
    const before = forwarded.length;
    const ended = await call('DELETE', `/auth/sessions/${encodeURIComponent(fresh)}`);
    expect(ended.status, ended.text).toBeLessThan(300);
    expect(forwarded.slice(before).filter((l) => l.startsWith('GET '))).toEqual([]);
  });

  it("Bob's user gets the unknown-id answer for Alice's credential and session, byte for byte, and nothing is forwarded (S11)", async () => {
    who = 'bob';
    const cases: Array<[string, string, string]> = [
      ['POST', `/auth/credentials/${encodeURIComponent(credentialId)}/challenge`, '/auth/credentials/AuthMethod:00000000-0000-4000-8000-000000000000/challenge'],
      ['DELETE', `/auth/sessions/${encodeURIComponent(sessionId)}`, '/auth/sessions/Session:00000000-0000-4000-8000-000000000000'],
      ['POST', `/auth/sessions/${encodeURIComponent(sessionId)}/refresh`, '/auth/sessions/Session:00000000-0000-4000-8000-000000000000/refresh'],
    ];
    for (const [method, foreign, unknown] of cases) {
      const before = forwarded.filter((l) => !l.startsWith('GET ')).length;
      const a = await call(method, foreign, method === 'DELETE' ? undefined : {});
      const b = await call(method, unknown, method === 'DELETE' ? undefined : {});
      expect([a.status, a.text], foreign).toEqual([b.status, b.text]);
      expect(a.status).toBe(404);
      expect(forwarded.filter((l) => !l.startsWith('GET ')).length).toBe(before);
    }
    who = 'alice';
  });
});
