// No key, OTP, token, mnemonic or platform secret in any log line. A full session runs through the
// wallet facade → the proxy (Node adapter, default console logger) → the sandbox (log sink
// captured): email OTP login, a signed update, adding an OAuth credential, an OAuth login, a legacy
// (sealed key) OAuth login, a refresh, a wallet export, logout. A tap on the wallet's fetch collects
// every secret value that actually crossed the wire; then the sandbox log, the proxy log and
// everything written to the console are scanned for those values (whole, and any 24-character
// piece of the long ones).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createProxy, toNodeHandler } from '../../src/proxy/index.js';
import { createWallet } from '../../src/wallet.js';
import { prepareLegacyOAuth } from '../../src/legacy.js';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { createWalletCustomer, platformClient } from '../../scripts/load.js';

const CLIENT_ID = 'platform-7d2e';
const CLIENT_SECRET = 'sk_live_like_4b9f1c3e8a2d7f60';
const BASIC = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
const OTP = '000000';

let sandbox: RunningSandbox;
let proxyServer: Server;
let proxyUrl: string;
const sandboxLines: string[] = [];
const consoleLines: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, log: (line) => sandboxLines.push(line) });
  // No logger option: the proxy's default logger (console.info) is what a deployment gets.
  const proxy = createProxy({ dangerouslyAllowEveryCaller: true, baseUrl: sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, prefix: '/api' });
  proxyServer = createServer(toNodeHandler(proxy));
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  vi.restoreAllMocks();
  proxyServer.closeAllConnections();
  await new Promise<void>((resolve) => proxyServer.close(() => resolve()));
  await sandbox.close();
});

/** Values that crossed the wire and must never be logged. */
class Secrets {
  readonly values = new Map<string, string>();

  add(what: string, value: unknown): void {
    if (typeof value === 'string' && value.length >= 6) this.values.set(value, what);
  }

  /** Reads the secret fields of a JSON body (request or response). */
  fromBody(text: string | null | undefined, path: string): void {
    if (!text) return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof body !== 'object' || body === null) return;
    const b = body as Record<string, unknown>;
    for (const field of ['encryptedOtpBundle', 'oidcToken', 'encryptedSessionSigningKey', 'encryptedWalletCredentials']) this.add(field, b[field]);
    // The OTP verify's payloadToSign is the verification token (a JWT bound to the session key).
    if (path.endsWith('/verify')) this.add('verification token', b.payloadToSign);
  }

  /** Every value that occurs in `text`: whole, or a 24-character piece of one of 32 or more. */
  foundIn(text: string): string[] {
    const found: string[] = [];
    for (const [value, what] of this.values) {
      if (text.includes(value)) {
        found.push(`${what} (whole)`);
        continue;
      }
      if (value.length < 32) continue;
      for (let i = 0; i + 24 <= value.length; i += 8) {
        if (text.includes(value.slice(i, i + 24))) {
          found.push(`${what} (piece at ${i})`);
          break;
        }
      }
    }
    return found;
  }
}

describe('secrets stay out of the logs', () => {
  it('a full session through wallet → proxy → sandbox: no secret in the sandbox log, the proxy log or the console', async () => {
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        consoleLines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a) ?? String(a))).join(' '));
      });
    }
    const secrets = new Secrets();
    secrets.add('platform client secret', CLIENT_SECRET);
    secrets.add('Basic credentials', BASIC.slice('Basic '.length));
    secrets.add('client id:secret', `${CLIENT_ID}:${CLIENT_SECRET}`);

    const tap: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const path = new URL(url).pathname;
      const headers = new Headers(init?.headers);
      secrets.add('stamp', headers.get('Service-Wallet-Signature'));
      secrets.fromBody(typeof init?.body === 'string' ? init.body : null, path);
      const response = await fetch(input, init);
      secrets.fromBody(await response.clone().text(), path);
      return response;
    };
    const wallet = createWallet({
      baseUrl: proxyUrl,
      trustedKeys: [sandbox.enclavePublicKey],
      keyStore: createKeyStore({ backend: createMemoryBackend() }),
      crossTab: false,
      autoRefresh: false,
      fetch: tap,
    });
    const admin = platformClient(sandbox.url, BASIC);
    const token = async (email: string, nonce: string): Promise<string> => {
      const t = (await admin.request<{ oidcToken: string }>({ method: 'POST', path: '/sandbox/oauth/token', body: { email, nonce } })).oidcToken;
      secrets.add('oidc token', t);
      return t;
    };

    const { accountId, email } = await createWalletCustomer(admin, `secrets-${Date.now()}`);
    const otpLogin = await wallet.startOtpLogin({ accountId });
    await otpLogin.verify(OTP);
    await wallet.updateAccount(accountId, { privateEnabled: true });
    await wallet.addOAuthCredential({ accountId, oidcToken: await token(email, 'registration') });
    const oauth = await wallet.prepareOAuth({ accountId });
    await oauth.complete(await token(email, oauth.nonce));
    const legacy = await prepareLegacyOAuth(wallet, { accountId });
    const legacySession = await legacy.complete(await token(email, legacy.nonce));
    expect(legacySession.legacy).toBe(true);
    await wallet.refresh(accountId);
    const mnemonic = await wallet.exportWallet(accountId);
    secrets.add('mnemonic', mnemonic);
    const words = mnemonic.split(' ');
    for (let i = 0; i + 3 <= words.length; i++) secrets.add('three mnemonic words', words.slice(i, i + 3).join(' '));
    await wallet.logout(accountId);
    wallet.dispose();

    const kinds = new Set(secrets.values.values());
    for (const kind of ['stamp', 'encryptedOtpBundle', 'verification token', 'oidcToken', 'encryptedSessionSigningKey', 'encryptedWalletCredentials', 'mnemonic']) {
      expect(kinds.has(kind), `the tap saw no ${kind}`).toBe(true);
    }
    // The proxy's lines: method, canonical path (prefix stripped), status, ms, code.
    const proxyLines = consoleLines.filter((l) => / \/(auth|internal-accounts)\//.test(l));
    expect(sandboxLines.length).toBeGreaterThan(15);
    expect(proxyLines.length).toBeGreaterThan(15);

    const all = [...sandboxLines, ...consoleLines];
    for (const line of all) {
      expect(secrets.foundIn(line), line).toEqual([]);
      // The OTP code, in any field.
      expect(line).not.toMatch(/000000|otp_code/);
    }
    process.stdout.write(
      process.env.ROBUSTNESS_TALLY === '1'
        ? `[tally] log scan: ${all.length} lines (${sandboxLines.length} sandbox, ${consoleLines.length} console) × ${secrets.values.size} secret values\n`
        : '',
    );
  });
});
