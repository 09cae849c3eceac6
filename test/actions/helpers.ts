/**
 * Shared setup of the action tests: the in-process sandbox, an admin client for platform calls
 * (customers, funding, cards), and wallets pointed straight at the sandbox with Basic auth in
 * `headers`, a memory key store, no cross-tab coordination and no automatic refresh (so the request
 * counts the tests assert are the actions' own).
 */
import { randomUUID } from 'node:crypto';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { findEmbeddedWallet } from '../../src/testing/client.js';
import type { Wallet, WalletConfig } from '../../src/wallet.js';
import type { KeyStoreBackend } from '../../src/keys/index.js';
import type { RequestLogEntry, SignRequest } from '../../src/transport/index.js';
import type { Session } from '../../src/session/index.js';
import {
  BASIC,
  OTP,
  emailLogin,
  randomPhone,
  testWallet as sandboxWallet,
  useSandbox,
  type SandboxScope,
  type TestCustomer as FlowCustomer,
  type TestWallet as FlowWallet,
} from '../flows/helpers/sandbox.js';

export { BASIC, OTP, emailLogin, explained, idPattern, optional, randomPhone } from '../flows/helpers/sandbox.js';

export interface TestCustomer extends FlowCustomer {
  /** The customer's USD internal account (not a wallet). */
  fiatAccountId: string;
}

export class Admin {
  constructor(readonly sandbox: RunningSandbox) {}

  async call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${this.sandbox.url}${path}`, {
      method,
      headers: { Authorization: BASIC, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  async customer(options: { phone?: boolean } = {}): Promise<TestCustomer> {
    const id = randomUUID();
    const email = `user-${id}@example.com`;
    const phoneNumber = options.phone ? randomPhone() : undefined;
    const created = await this.call<{ id: string }>('POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `pc-${id}`,
      email,
      ...(phoneNumber !== undefined ? { phoneNumber } : {}),
      fullName: 'Test User',
      currencies: ['USD'],
    });
    const accounts = await this.call<{ data: Array<{ id: string; type?: string }> }>('GET', `/internal-account?customerId=${encodeURIComponent(created.id)}`);
    // The spec's rule, not the account's `type` (spec-minimal omits it): src/testing/client.ts. The
    // customer has two accounts (currencies ['USD']): the wallet and the USD one.
    const wallet = await findEmbeddedWallet(accounts.data, (id) => this.call('GET', `/auth/credentials?accountId=${encodeURIComponent(id)}`).then(() => true, () => false));
    const fiat = accounts.data.find((a) => a.id !== wallet);
    if (!wallet || !fiat) throw new Error('customer without the expected accounts');
    return { customerId: created.id, accountId: wallet, fiatAccountId: fiat.id, email, phoneNumber };
  }

  fund(accountId: string, amount: number): Promise<unknown> {
    return this.call('POST', `/sandbox/internal-accounts/${encodeURIComponent(accountId)}/fund`, { amount });
  }

  async card(customer: TestCustomer): Promise<{ id: string }> {
    return this.call('POST', '/cards', { cardholderId: customer.customerId, fundingSource: customer.accountId }, { 'Idempotency-Key': randomUUID() });
  }

  async balance(accountId: string, customerId: string): Promise<number> {
    const list = await this.call<{ data: Array<{ id: string; balance: { amount: number } }> }>('GET', `/internal-account?customerId=${encodeURIComponent(customerId)}`);
    const account = list.data.find((a) => a.id === accountId);
    if (!account) throw new Error(`no account ${accountId}`);
    return account.balance.amount;
  }
}

export async function startTestSandbox(): Promise<{ sandbox: RunningSandbox; admin: Admin }> {
  const sandbox = await startSandbox({ port: 0, log: false });
  return { sandbox, admin: new Admin(sandbox) };
}

/** The action tests' sandbox (default options) and its admin client for the calling test file. */
export function useTestSandbox(): SandboxScope<Admin> {
  return useSandbox(startTestSandbox);
}

/** One HTTP request as the wallet's fetch saw it (headers and body included). */
export interface Wire {
  method: string;
  url: string;
  headers: Headers;
  body: string | undefined;
  status: number;
}

/** A flow-test wallet (wallet, keyStore, backend, every leg as reported to onRequest in `requests`), plus: */
export interface TestWallet extends FlowWallet {
  /** Every leg, as it went over the wire. */
  wire: Wire[];
  /** Every payload shown to onBeforeSign. */
  signs: SignRequest[];
  /** What onBeforeSign answers (default true). */
  approve: { value: boolean };
}

/**
 * A wallet on the sandbox. `alter` may rewrite a request before it is sent (a proxy gone wrong);
 * `alterResponse` may rewrite an answer's body. Pass `backend` to share storage with another wallet.
 */
export function testWallet(
  sandbox: RunningSandbox,
  options: Partial<WalletConfig> & {
    backend?: KeyStoreBackend;
    alter?: (init: RequestInit, url: string) => RequestInit;
    alterResponse?: (text: string, url: string) => string;
  } = {},
): TestWallet {
  const { alter, alterResponse, ...rest } = options;
  const wire: Wire[] = [];
  const signs: SignRequest[] = [];
  const approve = { value: true };
  const fetchSpy: typeof fetch = async (input, init = {}) => {
    const url = String(input instanceof Request ? input.url : input);
    const sent = alter ? alter(init, url) : init;
    const response = await fetch(input, sent);
    const entry: Wire = {
      method: sent.method ?? 'GET',
      url,
      headers: new Headers(sent.headers),
      body: typeof sent.body === 'string' ? sent.body : undefined,
      status: response.status,
    };
    wire.push(entry);
    if (!alterResponse) return response;
    const text = alterResponse(await response.text(), url);
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const base = sandboxWallet(sandbox, {
    autoRefresh: false,
    fetch: fetchSpy,
    onBeforeSign: (request) => {
      signs.push(request);
      return approve.value;
    },
    ...rest,
  });
  return { ...base, wire, signs, approve };
}

/** A new customer (with `fund` in its wallet when given) and a wallet logged in to it by email OTP. */
export async function loggedInCustomer(env: SandboxScope<Admin>, options: { fund?: number } = {}): Promise<{ customer: TestCustomer; t: TestWallet }> {
  const customer = await env.admin.customer();
  if (options.fund !== undefined) await env.admin.fund(customer.accountId, options.fund);
  const t = testWallet(env.sandbox);
  await emailLogin(t.wallet, customer.accountId);
  return { customer, t };
}

/** Adds the SMS_OTP credential (signed by the current session) and logs in with it. */
export async function addSmsAndLogin(wallet: Wallet, accountId: string): Promise<Session> {
  return (await wallet.addSmsOtp({ accountId })).verify(OTP);
}

/** Logs in by SMS OTP with the sandbox code. */
export async function smsLogin(wallet: Wallet, accountId: string): Promise<Session> {
  return (await wallet.startOtpLogin({ accountId, type: 'SMS_OTP' })).verify(OTP);
}

/** Runs `fn` and returns its result with the legs it sent (from the wallet's onRequest log). */
export async function counted<T>(t: TestWallet, fn: () => Promise<T>): Promise<{ result: T; legs: RequestLogEntry[]; wire: Wire[] }> {
  const start = t.requests.length;
  const wireStart = t.wire.length;
  const result = await fn();
  return { result, legs: t.requests.slice(start), wire: t.wire.slice(wireStart) };
}

/** Like `counted` for a call that must fail: the error and the legs it sent. */
export async function failing(t: TestWallet, fn: () => Promise<unknown>): Promise<{ error: any; legs: RequestLogEntry[]; wire: Wire[] }> {
  const start = t.requests.length;
  const wireStart = t.wire.length;
  try {
    await fn();
  } catch (error) {
    return { error, legs: t.requests.slice(start), wire: t.wire.slice(wireStart) };
  }
  throw new Error('expected a rejection');
}

/** `[method, status, leg, signed]` of each leg, for compact assertions. */
export function shape(legs: RequestLogEntry[]): Array<[string, number | undefined, number, boolean]> {
  return legs.map((l) => [l.method, l.status, l.leg, l.signed]);
}
