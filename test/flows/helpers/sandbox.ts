/**
 * The in-process sandbox for the flow and session tests, an admin client for the platform calls a
 * test needs (create a customer, mint an OIDC token, move the clock), and wallets pointed straight
 * at the sandbox with Basic auth in `headers` and a memory key store.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { findEmbeddedWallet } from '../../../src/testing/client.js';
import { createWallet, type Wallet, type WalletConfig, type WalletEvents } from '../../../src/wallet.js';
import { createKeyStore, createMemoryBackend, type KeyStore, type KeyStoreBackend } from '../../../src/keys/index.js';
import type { RequestLogEntry } from '../../../src/transport/index.js';
import type { Session } from '../../../src/session/index.js';

export { codeOf, errorOf } from '../../helpers/errors.js';

export const BASIC = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
export const ORIGIN = 'http://localhost:5173';

export interface TestCustomer {
  customerId: string;
  accountId: string;
  email: string;
  phoneNumber: string | undefined;
}

export class Admin {
  constructor(readonly sandbox: RunningSandbox) {}

  async call<T = any>(method: string, path: string, body?: unknown, auth = true): Promise<{ status: number; json: T }> {
    const headers: Record<string, string> = {};
    if (auth) headers.Authorization = BASIC;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.sandbox.url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, json: (text === '' ? undefined : JSON.parse(text)) as T };
  }

  /** A customer with an email (and optionally a phone) and its embedded wallet account. */
  async customer(options: { phone?: boolean; email?: boolean } = {}): Promise<TestCustomer> {
    const id = randomUUID();
    const email = `user-${id}@example.com`;
    const phoneNumber = options.phone ? randomPhone() : undefined;
    const created = await this.call('POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `pc-${id}`,
      ...(options.email !== false ? { email } : {}),
      ...(phoneNumber !== undefined ? { phoneNumber } : {}),
      fullName: 'Test User',
      currencies: ['USD'],
    });
    if (created.status !== 201) throw new Error(`customer: ${created.status} ${JSON.stringify(created.json)}`);
    const accounts = await this.call('GET', `/internal-account?customerId=${encodeURIComponent(created.json.id)}`);
    // The spec's rule, not the account's `type` (spec-minimal omits it): src/testing/client.ts.
    const wallet = await findEmbeddedWallet(accounts.json.data, async (id) => (await this.call('GET', `/auth/credentials?accountId=${encodeURIComponent(id)}`)).status === 200);
    if (wallet === undefined) throw new Error(`customer ${created.json.id} has no embedded wallet`);
    return { customerId: created.json.id, accountId: wallet, email, phoneNumber };
  }

  /** An OIDC token from the sandbox's stand-in IdP. */
  async oidcToken(email: string, nonce: string): Promise<string> {
    const answer = await this.call<{ oidcToken: string }>('POST', '/sandbox/oauth/token', { email, nonce }, false);
    if (answer.status !== 200) throw new Error(`token: ${answer.status}`);
    return answer.json.oidcToken;
  }

  advance(seconds: number): void {
    this.sandbox.advanceClock(seconds);
  }
}

/** A fresh US phone number in the 555 range. */
export function randomPhone(): string {
  return `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
}

/**
 * The flow, action and session tests' sandbox. Its profile comes from SANDBOX_PROFILE (startSandbox
 * reads it): the `node-service` Vitest project sets `service`, so these suites also run against a
 * sandbox that answers only what the service sends.
 */
export async function startTestSandbox(): Promise<{ sandbox: RunningSandbox; admin: Admin }> {
  const sandbox = await startSandbox({ port: 0, log: false, origin: ORIGIN, rpId: 'localhost' });
  return { sandbox, admin: new Admin(sandbox) };
}

/**
 * `value` where the sandbox profile explains an error (`details.cause`, `attemptsLeft`, …);
 * `undefined` in the service and spec-minimal profiles, which send no such details (as the service does not).
 */
export function explained<T>(sandbox: RunningSandbox, value: T): T | undefined {
  return sandbox.profile === 'sandbox' ? value : undefined;
}

/**
 * `value` where the answer carries a field the contract leaves optional (src/sandbox/contract.ts):
 * `undefined` in the spec-minimal profile, which omits every such field.
 */
export function optional<T>(sandbox: RunningSandbox, value: T): T | undefined {
  return sandbox.profile === 'spec-minimal' ? undefined : value;
}

/** The id pattern of an embedded-wallet record of `type` in this sandbox's profile (opaque ids in spec-minimal). */
export function idPattern(sandbox: RunningSandbox, type: string): RegExp {
  return sandbox.profile === 'spec-minimal' ? new RegExp(`^${type.toLowerCase()}_[0-9a-f]{32}$`) : new RegExp(`^${type}:`);
}

/** The sandbox of one test file and its admin client, readable once `beforeAll` has run. */
export interface SandboxScope<A> {
  readonly sandbox: RunningSandbox;
  readonly admin: A;
}

/**
 * Starts a sandbox (with `start`) in `beforeAll` and closes it in `afterAll` of the calling test file
 * (or describe block). Reading `sandbox` or `admin` before `beforeAll` has run throws.
 */
export function useSandbox<A>(start: () => Promise<{ sandbox: RunningSandbox; admin: A }>): SandboxScope<A> {
  let started: { sandbox: RunningSandbox; admin: A } | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.sandbox.close();
    started = undefined;
  });
  const get = () => {
    if (!started) throw new Error('the test sandbox is read outside a test (before beforeAll or after afterAll)');
    return started;
  };
  return {
    get sandbox() {
      return get().sandbox;
    },
    get admin() {
      return get().admin;
    },
  };
}

/** The flow and session tests' sandbox (origin ORIGIN, rpId localhost) for the calling test file. */
export function useTestSandbox(): SandboxScope<Admin> {
  return useSandbox(startTestSandbox);
}

export interface TestWallet {
  wallet: Wallet;
  keyStore: KeyStore;
  backend: KeyStoreBackend;
  requests: RequestLogEntry[];
}

/**
 * A wallet on the sandbox. Pass `backend` to share storage with another wallet (a reload, or a
 * second tab); cross-tab coordination is off unless `crossTab` is given.
 */
export function testWallet(sandbox: RunningSandbox, options: Partial<WalletConfig> & { backend?: KeyStoreBackend } = {}): TestWallet {
  const { backend: given, ...rest } = options;
  const backend = given ?? createMemoryBackend();
  const keyStore = createKeyStore({ backend });
  const requests: RequestLogEntry[] = [];
  const wallet = createWallet({
    baseUrl: sandbox.url,
    trustedKeys: [sandbox.enclavePublicKey],
    headers: { Authorization: BASIC },
    keyStore,
    crossTab: false,
    onRequest: (entry) => requests.push(entry),
    ...rest,
  });
  return { wallet, keyStore, backend, requests };
}

/** The code every sandbox OTP accepts. */
export const OTP = '000000';

/** Logs in by email OTP with the sandbox code. */
export async function emailLogin(wallet: Wallet, accountId: string): Promise<Session> {
  return (await wallet.startOtpLogin({ accountId })).verify(OTP);
}

/** Resolves on the next `event` of the wallet (rejects after `ms`). */
export function nextEvent<E extends keyof WalletEvents>(wallet: Wallet, event: E, ms = 10_000): Promise<WalletEvents[E]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${String(event)} event within ${ms} ms`));
    }, ms);
    const off = wallet.on(event, (payload) => {
      clearTimeout(timer);
      off();
      resolve(payload);
    });
  });
}
