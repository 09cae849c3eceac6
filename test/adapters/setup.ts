/**
 * Shared by the adapter tests: a sandbox with two provisioned customers (Alice's wallet logged in
 * with an email OTP credential), a proxy with ownership checks keyed by an `x-test-user` header
 * (a real app reads its session cookie), and the calls every adapter must carry: GET, POST, PATCH
 * and DELETE of the library, Alice's own → forwarded, Bob's → refused.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createProxy, provisionCustomer, type ProxyHandler } from '../../src/proxy/index.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

export interface AdapterWorld {
  readonly sandbox: RunningSandbox;
  readonly users: Readonly<Record<'alice' | 'bob', { customerId: string; accountId: string; credentialId: string }>>;
  /** A proxy mounted at `prefix`. */
  proxy(prefix: string): ProxyHandler;
}

export async function startWorld(): Promise<AdapterWorld> {
  const sandbox = await startSandbox({ port: 0, log: false });
  const service = { baseUrl: sandbox.url, clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET };
  const make = async (name: string) => {
    const id = randomUUID();
    const { customerId, accountId } = await provisionCustomer(service, { platformCustomerId: `${name}-${id}`, email: `${name}-${id}@example.com` });
    const list = await fetch(`${sandbox.url}/auth/credentials?accountId=${encodeURIComponent(accountId)}`, {
      headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_CLIENT_ID}:${DEFAULT_CLIENT_SECRET}`).toString('base64')}` },
    });
    const credentialId = ((await list.json()) as { data: { id: string }[] }).data[0]?.id ?? '';
    return { customerId, accountId, credentialId };
  };
  const users = { alice: await make('alice'), bob: await make('bob') };
  const byName: Record<string, { customerId: string }> = users;
  return {
    sandbox,
    users,
    proxy: (prefix) =>
      createProxy({
        ...service,
        prefix,
        logger: false,
        currentUser: (request) => byName[request.headers.get('x-test-user') ?? ''] ?? null,
      }),
  };
}

const e = encodeURIComponent;

/** Every method the library uses, through an adapter at `base` (e.g. `http://127.0.0.1:1234/api`). */
export async function expectLibraryCalls(base: string, world: AdapterWorld): Promise<void> {
  const { alice, bob } = world.users;
  const call = async (method: string, path: string, body?: unknown, user = 'alice') => {
    const response = await fetch(base + path, {
      method,
      headers: { 'x-test-user': user, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
  };

  const list = await call('GET', `/auth/credentials?accountId=${e(alice.accountId)}`);
  expect(list.status, list.text).toBe(200);
  expect(list.json.data[0].id).toBe(alice.credentialId);

  const challenge = await call('POST', `/auth/credentials/${e(alice.credentialId)}/challenge`, {});
  expect(challenge.status, challenge.text).toBe(200);
  expect(challenge.json.otpEncryptionTargetBundle).toEqual(expect.any(String));

  // First legs of signed actions: the service answers 202 with a challenge.
  const patch = await call('PATCH', `/internal-accounts/${e(alice.accountId)}`, { nickname: 'via adapter' });
  expect([patch.status, patch.json.payloadToSign !== undefined], patch.text).toEqual([202, true]);
  // DELETE reaches the service, whose own answer comes back: the wallet's only credential stays.
  const del = await call('DELETE', `/auth/credentials/${e(alice.credentialId)}`);
  expect([del.status, del.json.details?.cause], del.text).toEqual([400, 'LAST_CREDENTIAL']);

  // Bob's ids, by Alice; and no user at all.
  for (const [method, path] of [
    ['GET', `/auth/credentials?accountId=${e(bob.accountId)}`],
    ['PATCH', `/internal-accounts/${e(bob.accountId)}`],
    ['GET', `/internal-account?customerId=${e(bob.customerId)}`],
  ] as const) {
    const refused = await call(method, path, method === 'PATCH' ? { nickname: 'x' } : undefined);
    expect([refused.status, refused.json.code], refused.text).toEqual([403, 'FORBIDDEN']);
    expect(refused.text).not.toContain(bob.accountId);
  }
  const removed = await call('DELETE', `/auth/credentials/${e(bob.credentialId)}`);
  expect([removed.status, removed.json.code]).toEqual([404, 'AUTH_METHOD_NOT_FOUND']);
  const stranger = await call('GET', `/auth/credentials?accountId=${e(alice.accountId)}`, undefined, 'nobody');
  expect([stranger.status, stranger.json.code]).toEqual([401, 'LOGIN_REQUIRED']);
}
