/**
 * Multi-request steps the sandbox tests repeat: create a customer and find its wallet, log in by
 * email OTP, run a signed action (both legs).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { sealOtp } from './bundles.js';
import { enc, type Answer, type Api } from './http.js';
import { newKey, stamp, type TestKey } from './keys.js';

export interface Wallet {
  customer: any;
  accounts: any[];
  wallet: any;
  /** The EMAIL_OTP credential (AuthMethod). */
  email: any;
}

export async function createCustomer(api: Api, body: Record<string, unknown> = {}): Promise<Wallet> {
  const id = randomUUID();
  const created = await api.post('/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `pc-${id}`,
    email: `user-${id}@example.com`,
    fullName: 'Test User',
    currencies: ['USD'],
    ...body,
  });
  expect(created.status, created.text).toBe(201);
  const customer = created.json;
  const list = await api.get(`/internal-account?customerId=${enc(customer.id)}`);
  expect(list.status).toBe(200);
  const wallet = list.json.data.find((a: any) => a.type === 'EMBEDDED_WALLET');
  const creds = await api.get(`/auth/credentials?accountId=${enc(wallet.id)}`);
  expect(creds.status).toBe(200);
  return { customer, accounts: list.json.data, wallet, email: creds.json.data.find((m: any) => m.type === 'EMAIL_OTP') };
}

/** Challenge + verify (two legs) for an OTP credential; returns the AuthSession and its key. */
export async function otpLogin(api: Api, credentialId: string, key: TestKey = newKey()): Promise<{ session: any; key: TestKey }> {
  const challenge = await api.post(`/auth/credentials/${enc(credentialId)}/challenge`, {});
  expect(challenge.status, challenge.text).toBe(200);
  const body = { type: challenge.json.type, encryptedOtpBundle: await sealOtp(challenge.json.otpEncryptionTargetBundle, '000000', key.compressed) };
  const leg1 = await api.post(`/auth/credentials/${enc(credentialId)}/verify`, body);
  expect(leg1.status, leg1.text).toBe(202);
  const leg2 = await api.post(`/auth/credentials/${enc(credentialId)}/verify`, body, {
    headers: { 'Service-Wallet-Signature': stamp(leg1.json.payloadToSign, key), 'Request-Id': leg1.json.requestId },
  });
  expect(leg2.status, leg2.text).toBe(200);
  return { session: leg2.json, key };
}

/** First leg (expects 202), then the retry stamped by `key`; returns the retry's answer. */
export async function signed(api: Api, method: string, path: string, body: unknown, key: TestKey | 'magic'): Promise<Answer> {
  const first = await api.call(method, path, body === undefined ? {} : { body });
  expect(first.status, first.text).toBe(202);
  return api.call(method, path, {
    ...(body === undefined ? {} : { body }),
    headers: {
      'Service-Wallet-Signature': key === 'magic' ? 'sandbox-valid-signature' : stamp(first.json.payloadToSign, key),
      'Request-Id': first.json.requestId,
    },
  });
}

export function retryHeaders(challenge: Answer, key: TestKey): Record<string, string> {
  return { 'Service-Wallet-Signature': stamp(challenge.json.payloadToSign, key), 'Request-Id': challenge.json.requestId };
}
