/** Attack harness: a real sandbox, two customers, a proxy whose user is picked per request (header `x-user`). */
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createProxy, provisionCustomer } from '../../src/proxy/index.js';
import type { CurrentUser } from '../../src/proxy/ownership.js';

export interface World {
  sandbox: RunningSandbox;
  A: { customerId: string; wallet: string; other: string };
  B: { customerId: string; wallet: string; other: string };
  /** upstream call with platform credentials */
  svc(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; text: string }>;
  /** call through the proxy as a user */
  as(user: CurrentUser | null, method: string, path: string, init?: { body?: string | unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string }>;
  users: Map<string, CurrentUser>;
  proxy: ReturnType<typeof createProxy>;
  seen: string[];
  close(): Promise<void>;
}

const AUTH = 'Basic ' + Buffer.from('sandbox-client:sandbox-secret').toString('base64');

export async function world(currencies: string[] = ['USD']): Promise<World> {
  const sandbox = await startSandbox({ port: 0, log: false });
  const service = { baseUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' };
  const svc: World['svc'] = async (method, path, body, headers = {}) => {
    const r = await fetch(sandbox.url + path, {
      method,
      headers: { authorization: AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    let parsed: any;
    try { parsed = JSON.parse(text); } catch { parsed = undefined; }
    return { status: r.status, body: parsed, text };
  };
  const mk = async (name: string) => {
    const c = await provisionCustomer(service, { platformCustomerId: `atk-${name}`, email: `${name}@example.com`, fullName: name, currencies });
    const list = await svc('GET', `/internal-account?customerId=${c.customerId}`);
    const other = (list.body.data as any[]).find((a) => a.id !== c.accountId).id as string;
    await svc('POST', `/sandbox/customers/${c.customerId}/kyc`, { kycStatus: 'APPROVED' });
    return { customerId: c.customerId, wallet: c.accountId, other };
  };
  const A = await mk('alice-co');
  const B = await mk('bob-co');
  const users = new Map<string, CurrentUser>();
  const seen: string[] = [];
  const realFetch = globalThis.fetch;
  const proxy = createProxy({
    ...service,
    logger: false,
    fetch: (input: any, init?: any) => {
      seen.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return realFetch(input, init);
    },
    currentUser: (request) => users.get(request.headers.get('x-user') ?? '') ?? null,
  });
  let n = 0;
  const as: World['as'] = async (user, method, path, init = {}) => {
    const id = `u${n++}`;
    if (user !== null) users.set(id, user);
    const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const r = await proxy(
      new Request('http://proxy.local' + path, {
        method,
        headers: { 'x-user': id, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(init.headers ?? {}) },
        ...(body === undefined ? {} : { body }),
      }),
    );
    const text = await r.text();
    let parsed: any;
    try { parsed = JSON.parse(text); } catch { parsed = undefined; }
    return { status: r.status, body: parsed, text };
  };
  return { sandbox, A, B, svc, as, users, proxy, seen, close: () => sandbox.close() };
}

export const b64 = (s: string) => Buffer.from(s, 'base64url').toString('utf8');
