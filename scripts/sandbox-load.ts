/**
 * Load run for the sandbox: N concurrent clients (default 100) each create a customer, log in by
 * email OTP (challenge, HPKE-sealed code, two-leg verify) and perform M signed actions (default
 * 10 two-leg `PATCH /internal-accounts/{id}`). Prints requests/second, p50/p95/p99 latency and the
 * count of unexpected statuses (must be 0; the exit code is 1 otherwise).
 *
 *   npx tsx scripts/sandbox-load.ts                 # starts its own sandbox in a child process
 *   SANDBOX_URL=http://127.0.0.1:8787/2025-10-13 npx tsx scripts/sandbox-load.ts
 *   LOAD_CLIENTS=200 LOAD_ACTIONS=20 npx tsx scripts/sandbox-load.ts
 *
 * The client side uses node:crypto (ECDSA stamps) and @hpke/core (the OTP bundle) only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, createPublicKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';

const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 100);
const ACTIONS = Number(process.env.LOAD_ACTIONS ?? 10);
const AUTH = `Basic ${Buffer.from(`${process.env.SANDBOX_CLIENT_ID ?? 'sandbox-client'}:${process.env.SANDBOX_CLIENT_SECRET ?? 'sandbox-secret'}`).toString('base64')}`;

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const latencies: number[] = [];
const unexpected: string[] = [];

interface Key {
  privateKey: KeyObject;
  compressed: string;
}

function newKey(): Key {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const y = Buffer.from(jwk.y as string, 'base64url');
  return { privateKey, compressed: ((y[31] as number) % 2 === 0 ? '02' : '03') + Buffer.from(jwk.x as string, 'base64url').toString('hex') };
}

function stamp(payload: string, key: Key): string {
  const signature = sign('sha256', Buffer.from(payload, 'utf8'), { key: key.privateKey, dsaEncoding: 'der' }).toString('hex');
  return Buffer.from(JSON.stringify({ publicKey: key.compressed, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString('base64url');
}

async function sealOtp(targetBundle: string, code: string, publicKey: string): Promise<string> {
  const bundle = JSON.parse(targetBundle) as { data: string };
  const target = new Uint8Array(Buffer.from((JSON.parse(Buffer.from(bundle.data, 'hex').toString('utf8')) as { targetPublic: string }).targetPublic, 'hex'));
  const ekm = await suite.kem.generateKeyPair();
  const enc = new Uint8Array(await suite.kem.serializePublicKey(ekm.publicKey));
  const aad = new Uint8Array([...enc, ...target]);
  const sealed = await suite.seal(
    { recipientPublicKey: await suite.kem.deserializePublicKey(target), info: new TextEncoder().encode('turnkey_hpke'), ekm },
    new TextEncoder().encode(JSON.stringify({ otp_code: code, public_key: publicKey })),
    aad,
  );
  return JSON.stringify({ encappedPublic: Buffer.from(enc).toString('hex'), ciphertext: Buffer.from(sealed.ct).toString('hex') });
}

async function call(base: string, method: string, path: string, expected: number, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: AUTH, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  latencies.push(performance.now() - started);
  if (res.status !== expected) {
    unexpected.push(`${method} ${path.split('?')[0]} → ${res.status} ${text.slice(0, 200)}`);
    throw new Error('unexpected status');
  }
  return text === '' ? undefined : JSON.parse(text);
}

async function client(base: string): Promise<void> {
  const id = randomUUID();
  const customer = await call(base, 'POST', '/customers', 201, { customerType: 'INDIVIDUAL', platformCustomerId: `load-${id}`, email: `load-${id}@example.com`, currencies: ['USD'] });
  const accounts = await call(base, 'GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}&type=EMBEDDED_WALLET`, 200);
  const wallet = accounts.data[0];
  const creds = await call(base, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`, 200);
  const credential = creds.data[0].id as string;
  const challenge = await call(base, 'POST', `/auth/credentials/${encodeURIComponent(credential)}/challenge`, 200, {});
  const key = newKey();
  const verifyBody = { type: 'EMAIL_OTP', encryptedOtpBundle: await sealOtp(challenge.otpEncryptionTargetBundle, '000000', key.compressed) };
  const leg1 = await call(base, 'POST', `/auth/credentials/${encodeURIComponent(credential)}/verify`, 202, verifyBody);
  await call(base, 'POST', `/auth/credentials/${encodeURIComponent(credential)}/verify`, 200, verifyBody, {
    'Service-Wallet-Signature': stamp(leg1.payloadToSign, key),
    'Request-Id': leg1.requestId,
  });
  for (let i = 0; i < ACTIONS; i += 1) {
    const path = `/internal-accounts/${encodeURIComponent(wallet.id)}`;
    const body = { nickname: `n-${i}`, privateEnabled: i % 2 === 0 };
    const first = await call(base, 'PATCH', path, 202, body);
    await call(base, 'PATCH', path, 200, body, { 'Service-Wallet-Signature': stamp(first.payloadToSign, key), 'Request-Id': first.requestId });
  }
}

function startChild(): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], {
      env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_LOG: 'off' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /sandbox listening: (\S+)/.exec(out);
      if (m) resolve({ url: m[1] as string, child });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const own = process.env.SANDBOX_URL === undefined ? await startChild() : undefined;
const base = process.env.SANDBOX_URL ?? (own?.url as string);
try {
  const started = performance.now();
  const results = await Promise.allSettled(Array.from({ length: CLIENTS }, () => client(base)));
  const seconds = (performance.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  const failedClients = results.filter((r) => r.status === 'rejected').length;
  console.log(`clients: ${CLIENTS}, signed actions per client: ${ACTIONS}`);
  console.log(`requests: ${latencies.length} in ${seconds.toFixed(2)} s → ${(latencies.length / seconds).toFixed(0)} requests/s`);
  console.log(`latency: p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(1)} ms`);
  console.log(`unexpected statuses: ${unexpected.length}; clients failed: ${failedClients}`);
  for (const u of unexpected.slice(0, 10)) console.log(`  ${u}`);
  process.exitCode = unexpected.length === 0 && failedClients === 0 ? 0 : 1;
} finally {
  own?.child.kill('SIGTERM');
}
