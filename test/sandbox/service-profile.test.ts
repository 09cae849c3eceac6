// The sandbox's service profile (issue 15): answers carry only what the spec and the wire reference
// define, error bodies shaped as the service sends them; behaviour is the same as the default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { isWalletError } from '../../src/errors.js';
import { sealOtp } from './helpers/bundles.js';
import { createCustomer, otpLogin } from './helpers/flows.js';
import { Api, enc, start, type Answer } from './helpers/http.js';
import { newKey } from './helpers/keys.js';
import { PROBES } from './helpers/probes.js';

let service: Api;
let sandbox: Api;
beforeAll(async () => {
  [service, sandbox] = await Promise.all([start({ profile: 'service' }), start({ profile: 'sandbox' })]);
});
afterAll(() => Promise.all([service.sandbox.close(), sandbox.sandbox.close()]));

async function wrongCode(api: Api): Promise<Answer> {
  const w = await createCustomer(api);
  const c = await api.post(`/auth/credentials/${enc(w.email.id)}/challenge`, {});
  return api.post(`/auth/credentials/${enc(w.email.id)}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(c.json.otpEncryptionTargetBundle, '123456', newKey().compressed) });
}

describe('choosing the profile', () => {
  it('option, else SANDBOX_PROFILE, else sandbox; anything else → INVALID_ARGUMENT', async () => {
    expect(service.sandbox.profile).toBe('service');
    const saved = process.env.SANDBOX_PROFILE;
    try {
      process.env.SANDBOX_PROFILE = 'service';
      const fromEnv = await startSandbox({ log: false });
      expect(fromEnv.profile).toBe('service');
      await fromEnv.close();
      const explicit = await startSandbox({ log: false, profile: 'sandbox' });
      expect(explicit.profile).toBe('sandbox');
      await explicit.close();
      process.env.SANDBOX_PROFILE = 'prod';
      await expect(startSandbox({ log: false })).rejects.toSatisfy((e) => isWalletError(e, 'INVALID_ARGUMENT'));
      delete process.env.SANDBOX_PROFILE;
      const byDefault = await startSandbox({ log: false });
      expect(byDefault.profile).toBe('sandbox');
      await byDefault.close();
      await expect(startSandbox({ log: false, profile: 'strict' as never })).rejects.toSatisfy((e) => isWalletError(e, 'INVALID_ARGUMENT'));
    } finally {
      if (saved === undefined) delete process.env.SANDBOX_PROFILE;
      else process.env.SANDBOX_PROFILE = saved;
    }
  });
});

describe('error bodies', () => {
  it('a wrong OTP code → 400 INVALID_INPUT (spec §7.1): the sandbox explains (status, message, details.cause, attemptsLeft); the service sends {code, reason}', async () => {
    const explained = await wrongCode(sandbox);
    expect(explained.status).toBe(400);
    expect(explained.json).toEqual({ status: 400, code: 'INVALID_INPUT', reason: 'The code is wrong', message: 'The code is wrong', details: { cause: 'OTP_CODE_INVALID', attemptsLeft: 4 } });
    const bare = await wrongCode(service);
    expect(bare.status).toBe(400);
    expect(bare.json).toEqual({ code: 'INVALID_INPUT', reason: 'The code is wrong' });
  });

  it('field errors keep details.errors (the spec defines them), nothing else', async () => {
    const r = await service.post('/customers', { customerType: 'NOBODY' });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json)).toEqual(['code', 'reason', 'details']);
    expect(Object.keys(r.json.details)).toEqual(['errors']);
    expect(r.json.details.errors.map((e: any) => e.field)).toEqual(['customerType', 'platformCustomerId']);
  });

  it('an expired request id: 401 WALLET_SIGNATURE_INVALID without requestStatus; 429 keeps Retry-After without details', async () => {
    const w = await createCustomer(service);
    const { key } = await otpLogin(service, w.email.id);
    void key;
    const path = `/internal-accounts/${enc(w.wallet.id)}`;
    const first = await service.patch(path, { privateEnabled: true });
    service.sandbox.advanceClock(5 * 60 + 1);
    const late = await service.patch(path, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': first.json.requestId } });
    expect(late.status).toBe(401);
    expect(late.json).toEqual({ code: 'WALLET_SIGNATURE_INVALID', reason: expect.any(String) });
    let limited: Answer | undefined;
    for (let i = 0; i < 6 && limited?.status !== 429; i++) limited = await service.post(`/auth/credentials/${enc(w.email.id)}/challenge`, {});
    expect(limited?.status).toBe(429);
    expect(limited?.headers.get('retry-after')).toMatch(/^[0-9]+$/);
    expect(limited?.json).toEqual({ code: 'RATE_LIMITED', reason: expect.any(String) });
  });

  it('unparseable HTTP gets the profile shape too', async () => {
    const { connect } = await import('node:net');
    const url = new URL(service.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (c) => (text += c.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'INVALID_INPUT', reason: 'The request could not be parsed as HTTP' });
  });
});

describe('success bodies', () => {
  it('AuthSession carries no authMethodId in the service profile (the sandbox profile adds it)', async () => {
    for (const [api, expected] of [[sandbox, true], [service, false]] as const) {
      const w = await createCustomer(api);
      const { session } = await otpLogin(api, w.email.id);
      expect('authMethodId' in session).toBe(expected);
      const list = await api.get(`/auth/sessions?accountId=${enc(w.wallet.id)}`);
      expect(list.json.data.every((s: any) => 'authMethodId' in s === expected)).toBe(true);
    }
  });
});

describe('the same behaviour in both profiles', () => {
  it.each(Object.keys(PROBES))('probe %s: the same statuses and codes', async (name) => {
    const run = PROBES[name] as (api: Api) => Promise<Record<string, Answer>>;
    const [a, b] = await Promise.all([run(sandbox), run(service)]);
    const summary = (r: Record<string, Answer>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, [v.status, v.json?.code]]));
    expect(summary(b)).toEqual(summary(a));
  });
});
