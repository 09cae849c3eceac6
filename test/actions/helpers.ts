/**
 * Shared setup of the action tests: the in-process sandbox, an admin client for platform calls
 * (customers, funding, cards), and wallets pointed straight at the sandbox with Basic auth in
 * `headers`, a memory key store, no cross-tab coordination and no automatic refresh (so the request
 * counts the tests assert are the actions' own).
 */
import { randomUUID } from 'node:crypto';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createWallet, type Wallet, type WalletConfig } from '../../src/wallet.js';
import { createKeyStore, createMemoryBackend, type KeyStore, type KeyStoreBackend } from '../../src/keys/index.js';
import type { RequestLogEntry, SignRequest } from '../../src/transport/index.js';
import type { Session } from '../../src/session/index.js';

export const BASIC = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
export const OTP = '000000';

export interface TestCustomer {
  customerId: string;
  /** The embedded wallet. */
  accountId: string;
  /** The customer's USD internal account (not a wallet). */
  fiatAccountId: string;
  email: string;
  phoneNumber: string | undefined;
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
    const accounts = await this.call<{ data: Array<{ id: string; type: string }> }>('GET', `/internal-account?customerId=${encodeURIComponent(created.id)}`);
    const wallet = accounts.data.find((a) => a.type === 'EMBEDDED_WALLET');
    const fiat = accounts.data.find((a) => a.type === 'INTERNAL_FIAT');
    if (!wallet || !fiat) throw new Error('customer without the expected accounts');
    return { customerId: created.id, accountId: wallet.id, fiatAccountId: fiat.id, email, phoneNumber };
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

export function randomPhone(): string {
  return `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
}

export async function startTestSandbox(): Promise<{ sandbox: RunningSandbox; admin: Admin }> {
  const sandbox = await startSandbox({ port: 0, log: false });
  return { sandbox, admin: new Admin(sandbox) };
}

/** One HTTP request as the wallet's fetch saw it (headers and body included). */
export interface Wire {
  method: string;
  url: string;
  headers: Headers;
  body: string | undefined;
  status: number;
}

export interface TestWallet {
  wallet: Wallet;
  keyStore: KeyStore;
  backend: KeyStoreBackend;
  /** Every leg, as reported to onRequest. */
  requests: RequestLogEntry[];
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
  const { backend: given, alter, alterResponse, ...rest } = options;
  const backend = given ?? createMemoryBackend();
  const keyStore = createKeyStore({ backend });
  const requests: RequestLogEntry[] = [];
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
  const wallet = createWallet({
    baseUrl: sandbox.url,
    trustedKeys: [sandbox.enclavePublicKey],
    headers: { Authorization: BASIC },
    keyStore,
    crossTab: false,
    autoRefresh: false,
    fetch: fetchSpy,
    onRequest: (entry) => requests.push(entry),
    onBeforeSign: (request) => {
      signs.push(request);
      return approve.value;
    },
    ...rest,
  });
  return { wallet, keyStore, backend, requests, wire, signs, approve };
}

/** Logs in by email OTP with the sandbox code. */
export async function emailLogin(wallet: Wallet, accountId: string): Promise<Session> {
  return (await wallet.startOtpLogin({ accountId })).verify(OTP);
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
