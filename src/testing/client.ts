/**
 * A test's handle on a running sandbox, over HTTP with the platform credentials: the same calls
 * work on a sandbox this process started and on one another process runs (a demo stack, CI).
 * Node only (it holds the platform secret; never ship it to a browser).
 */
import { invalidArgument, WalletError } from '../errors.js';
import type { ArmedFault, FaultSpec } from '../sandbox/faults.js';

/** Where a sandbox is and how to authenticate to it. */
export interface SandboxTarget {
  /** `{base_url}` of the sandbox, ending in `/2025-10-13`. */
  url: string;
  /** Platform client id (HTTP Basic); default `sandbox-client`. */
  clientId?: string;
  /** Platform client secret (HTTP Basic); default `sandbox-secret`. */
  clientSecret?: string;
}

/** A customer the sandbox created for a test, with its embedded wallet. */
export interface TestCustomer {
  /** `Customer:<uuid>`. */
  customerId: string;
  /** The customer's `EMBEDDED_WALLET` internal account: what the wallet logs in to and signs for. */
  accountId: string;
  /** The customer's email (its EMAIL_OTP credential's). */
  email: string;
  /** The customer's E.164 phone, when one was asked for. */
  phoneNumber: string | undefined;
}

/**
 * Which of a customer's internal accounts is its embedded wallet, by what the spec guarantees
 * (issue 34; the `spec-minimal` profile sends no account `type`, SPEC-MINIMAL.md):
 * 1. an account carrying `type` says it (`EMBEDDED_WALLET`): the service profile sends it, and it is
 *    the cheap answer where present;
 * 2. otherwise (the documented fallback) the first account, in list order, whose credential list
 *    answers — spec §4.5: `GET /auth/credentials` lists "all credentials of an embedded-wallet
 *    internal account", so the service answers it only for a wallet (the sandbox refuses another
 *    account with `400 INVALID_INPUT`). `hasCredentialList(id)` makes that call and says whether it
 *    answered 2xx.
 * Undefined when no account qualifies.
 */
export async function findEmbeddedWallet(
  accounts: readonly { id: string; type?: unknown }[],
  hasCredentialList: (accountId: string) => Promise<boolean>,
): Promise<string | undefined> {
  const typed = accounts.filter((a) => typeof a.type === 'string');
  if (typed.length > 0) return typed.find((a) => a.type === 'EMBEDDED_WALLET')?.id;
  for (const a of accounts) if (await hasCredentialList(a.id)) return a.id;
  return undefined;
}

/** The embedded-wallet login code of every sandbox (wire reference §10). */
export const SANDBOX_OTP = '000000';

let seq = 0;
function unique(): string {
  seq += 1;
  return `${Date.now().toString(36)}${seq.toString(36)}${Math.floor(Math.random() * 46656).toString(36)}`;
}

/** Calls on a sandbox for tests: customers, funding, OIDC tokens, the clock, faults. */
export class SandboxClient {
  /** `{base_url}` of the sandbox. */
  readonly url: string;
  /** The platform client id it authenticates with. */
  readonly clientId: string;
  private readonly authorization: string;

  constructor(target: SandboxTarget) {
    if (typeof target?.url !== 'string' || !/^https?:\/\//.test(target.url)) throw invalidArgument('target.url', 'the sandbox base URL (http://…/2025-10-13)');
    this.url = target.url.replace(/\/+$/, '');
    this.clientId = target.clientId ?? 'sandbox-client';
    this.authorization = `Basic ${Buffer.from(`${this.clientId}:${target.clientSecret ?? 'sandbox-secret'}`).toString('base64')}`;
  }

  /** One call; a non-2xx answer is a WalletError with the status and the sandbox's code. */
  async call<T = unknown>(method: string, path: string, body?: unknown, options: { auth?: boolean } = {}): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.auth !== false) headers.Authorization = this.authorization;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    const json = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    if (!res.ok) {
      const code = typeof json?.code === 'string' ? json.code : 'BAD_RESPONSE';
      throw new WalletError(code, `sandbox ${method} ${path}: ${res.status} ${typeof json?.reason === 'string' ? json.reason : text}`, { status: res.status });
    }
    return json as T;
  }

  /** Whether a call answers 2xx (its body read and dropped). */
  private async answers(method: string, path: string): Promise<boolean> {
    const res = await fetch(`${this.url}${path}`, { method, headers: { Authorization: this.authorization } });
    await res.arrayBuffer();
    return res.ok;
  }

  /** The enclave key to trust (`createWallet({ trustedKeys: [it] })`). */
  async enclavePublicKey(): Promise<string> {
    return (await this.call<{ enclaveQuorumPublic: string }>('GET', '/sandbox/enclave')).enclaveQuorumPublic;
  }

  /** A new customer with an email (and a phone when asked) and its embedded wallet. */
  async createCustomer(options: { email?: string; phone?: boolean | string; currencies?: string[] } = {}): Promise<TestCustomer> {
    const tag = unique();
    const email = options.email ?? `test.${tag}@example.com`;
    const phoneNumber = typeof options.phone === 'string' ? options.phone : options.phone ? `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}` : undefined;
    const customer = await this.call<{ id: string }>('POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `test-${tag}`,
      email,
      ...(phoneNumber !== undefined ? { phoneNumber } : {}),
      fullName: 'Test Customer',
      currencies: options.currencies ?? ['USD'],
    });
    const accounts = await this.call<{ data: { id: string; type?: unknown }[] }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}`);
    const wallet = await findEmbeddedWallet(accounts.data, (id) => this.answers('GET', `/auth/credentials?accountId=${encodeURIComponent(id)}`));
    if (wallet === undefined) throw new WalletError('BAD_RESPONSE', `the sandbox made no EMBEDDED_WALLET account for ${customer.id}`);
    return { customerId: customer.id, accountId: wallet, email, phoneNumber };
  }

  /** Adds `amount` (smallest unit) to an internal account's balance. */
  async fund(accountId: string, amount: number): Promise<void> {
    await this.call('POST', `/sandbox/internal-accounts/${encodeURIComponent(accountId)}/fund`, { amount });
  }

  /** An OIDC ID token from the sandbox's stand-in IdP for `email`, carrying `nonce` (`aud` optional). */
  async oidcToken(email: string, nonce: string, aud?: string): Promise<string> {
    return (await this.call<{ oidcToken: string }>('POST', '/sandbox/oauth/token', { email, nonce, ...(aud !== undefined ? { aud } : {}) }, { auth: false })).oidcToken;
  }

  /** Moves the sandbox clock forward (shared by every test on this sandbox); returns the new time. */
  async advanceClock(seconds: number): Promise<string> {
    return (await this.call<{ now: string }>('POST', '/sandbox/clock/advance', { seconds })).now;
  }

  /** The sandbox clock (ISO 8601). */
  async now(): Promise<string> {
    return (await this.call<{ now: string }>('GET', '/sandbox/clock')).now;
  }

  /** Arms a fault: the next `times` answers of a route PROCESSING, 5xx, 429, slow or dropped (sandbox faults.ts). */
  async addFault(spec: FaultSpec): Promise<ArmedFault> {
    return this.call<ArmedFault>('POST', '/sandbox/faults', spec);
  }

  /** The armed faults with their uses left. */
  async listFaults(): Promise<ArmedFault[]> {
    return (await this.call<{ data: ArmedFault[] }>('GET', '/sandbox/faults')).data;
  }

  /** Sends the answers a `hold` fault holds now (sandbox faults.ts); returns the fault. */
  async releaseFault(id: number): Promise<ArmedFault> {
    return this.call<ArmedFault>('POST', `/sandbox/faults/${id}/release`);
  }

  /** Disarms every fault (held answers are sent). */
  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/sandbox/faults');
  }
}
