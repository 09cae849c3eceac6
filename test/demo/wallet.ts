/**
 * Wallet steps a demo user runs through `/api` (the proxy), with the library's own crypto core:
 * an email-OTP login (challenge, then verify with its 202 first leg and signed retry) and a signed
 * action (first leg, then the retry stamped by the session key).
 */
import { expect } from 'vitest';
import { generateSessionKey, stamp, type SessionKey } from '../../src/crypto/index.js';
import { buildEncryptedOtpBundle } from '../../src/crypto/enclave.js';
import { enc, type Answer, type Browser, type Me } from './browser.js';

export const SIGNATURE_HEADER = 'Service-Wallet-Signature';

export interface Login {
  readonly key: SessionKey;
  /** The AuthSession the signed retry answered. */
  readonly session: { id: string; accountId: string; expiresAt: string };
  /** The verify call's first leg (202) and signed retry (200). */
  readonly legs: readonly [Answer, Answer];
}

/** The wallet's EMAIL_OTP credential id, listed through the proxy. */
export async function emailCredentialId(browser: Browser, walletAccountId: string): Promise<string> {
  const list = await browser.get(`/api/auth/credentials?accountId=${enc(walletAccountId)}`);
  expect(list.status, list.text).toBe(200);
  const email = (list.json.data as { id: string; type: string }[]).find((m) => m.type === 'EMAIL_OTP');
  expect(email, 'the sign-up email is a credential of the wallet').toBeDefined();
  return (email as { id: string }).id;
}

/** Logs in with an OTP credential (sandbox code 000000), trusting the keys `/demo/me` handed out. */
export async function otpLogin(browser: Browser, credentialId: string, me: Me): Promise<Login> {
  const key = await generateSessionKey();
  const path = `/api/auth/credentials/${enc(credentialId)}/`;
  const challenge = await browser.post(`${path}challenge`, {});
  expect(challenge.status, challenge.text).toBe(200);
  const body = {
    type: challenge.json.type as string,
    encryptedOtpBundle: await buildEncryptedOtpBundle({
      targetBundle: challenge.json.otpEncryptionTargetBundle,
      otpCode: '000000',
      sessionPublicKeyHex: key.publicKeyHex,
      trustedKeys: me.trustedKeys,
    }),
  };
  const first = await browser.post(`${path}verify`, body);
  expect(first.status, first.text).toBe(202);
  const retry = await browser.post(`${path}verify`, body, {
    headers: { [SIGNATURE_HEADER]: await stamp(first.json.payloadToSign, key), 'Request-Id': first.json.requestId },
  });
  expect(retry.status, retry.text).toBe(200);
  return { key, session: retry.json, legs: [first, retry] };
}

/** The signed retry of a 202 first leg: the same request again with the stamp and `Request-Id`. */
export async function signedRetry(browser: Browser, method: string, path: string, body: unknown, challenge: Answer, key: SessionKey): Promise<Answer> {
  expect(challenge.status, challenge.text).toBe(202);
  return browser.call(method, path, {
    ...(body === undefined ? {} : { body }),
    headers: { [SIGNATURE_HEADER]: await stamp(challenge.json.payloadToSign, key), 'Request-Id': challenge.json.requestId },
  });
}
