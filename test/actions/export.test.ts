// Wallet export through the wallet facade against the sandbox: a valid BIP-39 mnemonic in exactly two
// requests, a fresh uncompressed recipient key that never reaches the key store's storage (watched
// while the export is in flight, and after every failure), the envelope's signature checked against
// the trusted keys unless the app opted out, and the mnemonic never stored or logged.
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bytesToHex, generateSessionKey } from '../../src/crypto/index.js';
import { createMemoryBackend, type KeyStoreBackend } from '../../src/keys/index.js';
import { counted, emailLogin, failing, loggedInCustomer, shape, useTestSandbox, testWallet, type TestCustomer, type TestWallet } from './helpers.js';

const env = useTestSandbox();
let customer: TestCustomer;
let t: TestWallet;

beforeAll(async () => {
  ({ customer, t } = await loggedInCustomer(env));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** ECDH private keys held by the wallet's storage (every value, key records and metadata alike). */
async function recipientKeys(w: TestWallet): Promise<number> {
  return ecdhKeysIn(await w.backend.entries());
}

function ecdhKeysIn(entries: Array<[string, unknown]>): number {
  let n = 0;
  const visit = (value: unknown): void => {
    if (value instanceof CryptoKey) {
      if (value.type === 'private' && value.algorithm.name === 'ECDH') n++;
    } else if (typeof value === 'object' && value !== null) {
      for (const v of Object.values(value)) visit(v);
    }
  };
  for (const [, value] of entries) visit(value);
  return n;
}

/** A wallet on the same storage as `t` (so it holds t's session), with other options. */
async function sibling(options: Parameters<typeof testWallet>[1]): Promise<TestWallet> {
  const w = testWallet(env.sandbox, { backend: t.backend, ...options });
  await w.wallet.restore();
  return w;
}

/** Rewrites the export answer's envelope. */
function tamperEnvelope(change: (envelope: Record<string, string>) => void): (text: string, url: string) => string {
  return (text, url) => {
    if (!url.endsWith('/export')) return text;
    const answer = JSON.parse(text) as { encryptedWalletCredentials?: string };
    if (answer.encryptedWalletCredentials === undefined) return text;
    const envelope = JSON.parse(answer.encryptedWalletCredentials) as Record<string, string>;
    change(envelope);
    return JSON.stringify({ ...answer, encryptedWalletCredentials: JSON.stringify(envelope) });
  };
}

describe('exportWallet', () => {
  it('opens to a valid BIP-39 mnemonic in exactly 2 requests; the recipient key is fresh, uncompressed and deleted', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m));
    const signed = t.signs.length;
    const { result: mnemonic, legs, wire } = await counted(t, () => t.wallet.exportWallet());
    expect(shape(legs)).toEqual([
      ['POST', 202, 1, false],
      ['POST', 200, 2, true],
    ]);
    const words = mnemonic.split(' ');
    expect([12, 24]).toContain(words.length);
    expect(validateMnemonic(mnemonic, wordlist)).toBe(true);

    const body = JSON.parse(wire[0]!.body!) as { clientPublicKey: string };
    expect(Object.keys(body)).toEqual(['clientPublicKey']);
    expect(body.clientPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(wire[1]!.body).toBe(wire[0]!.body);
    expect(t.signs.slice(signed)).toEqual([expect.objectContaining({ purpose: 'export-wallet', leg: 2 })]);

    // The recipient key is gone; the session key is untouched.
    expect(await recipientKeys(t)).toBe(0);
    expect(await t.keyStore.get(t.wallet.session()!.publicKeyHex)).toBeDefined();

    // Nothing stored or logged holds the mnemonic.
    const stored = JSON.stringify(await t.backend.entries());
    expect(stored).not.toContain(words.slice(0, 3).join(' '));
    for (const spy of spies) for (const call of spy.mock.calls) expect(JSON.stringify(call)).not.toContain(words.slice(0, 3).join(' '));

    // A second export (another fresh key) opens to the same wallet.
    const again = await counted(t, () => t.wallet.exportWallet(customer.accountId));
    expect(again.result).toBe(mnemonic);
    expect(JSON.parse(again.wire[0]!.body!).clientPublicKey).not.toBe(body.clientPublicKey);
    expect(await recipientKeys(t)).toBe(0);
  });

  it('an envelope signed by an untrusted enclave: BUNDLE_SIGNER_UNTRUSTED, and the recipient key is deleted', async () => {
    const stranger = bytesToHex(new Uint8Array(await crypto.subtle.exportKey('raw', (await generateSessionKey()).publicKey)));
    const w = await sibling({ trustedKeys: [stranger] });
    const { error, legs } = await failing(w, () => w.wallet.exportWallet());
    expect(error.code).toBe('BUNDLE_SIGNER_UNTRUSTED');
    expect(legs).toHaveLength(2);
    expect(await recipientKeys(w)).toBe(0);
  });

  it('a tampered signature: BUNDLE_SIGNATURE_INVALID with trusted keys; the explicit opt-out still opens it', async () => {
    const flip = tamperEnvelope((e) => {
      const sig = e.dataSignature!;
      e.dataSignature = sig.slice(0, -2) + (sig.endsWith('00') ? '01' : '00');
    });
    const checked = await sibling({ alterResponse: flip });
    expect((await failing(checked, () => checked.wallet.exportWallet())).error.code).toBe('BUNDLE_SIGNATURE_INVALID');
    expect(await recipientKeys(checked)).toBe(0);

    const optedOut = await sibling({ alterResponse: flip, trustedKeys: 'skip-verification' });
    expect(validateMnemonic(await optedOut.wallet.exportWallet(), wordlist)).toBe(true);
    expect(await recipientKeys(optedOut)).toBe(0);
  });

  it('a tampered ciphertext fails to open (DECRYPTION_FAILED) even with verification skipped; the key is deleted', async () => {
    const w = await sibling({
      trustedKeys: 'skip-verification',
      alterResponse: tamperEnvelope((e) => {
        const data = JSON.parse(Buffer.from(e.data!, 'hex').toString('utf8')) as Record<string, string>;
        const c = data.ciphertext!;
        data.ciphertext = (c[0] === 'a' ? 'b' : 'a') + c.slice(1);
        e.data = Buffer.from(JSON.stringify(data), 'utf8').toString('hex');
      }),
    });
    expect((await failing(w, () => w.wallet.exportWallet())).error.code).toBe('DECRYPTION_FAILED');
    expect(await recipientKeys(w)).toBe(0);
  });

  it('a refusal in onBeforeSign (SIGNING_REFUSED) after the first leg; the key is deleted', async () => {
    t.approve.value = false;
    try {
      const { error, legs } = await failing(t, () => t.wallet.exportWallet());
      expect(error.code).toBe('SIGNING_REFUSED');
      expect(shape(legs)).toEqual([['POST', 202, 1, false]]);
    } finally {
      t.approve.value = true;
    }
    expect(await recipientKeys(t)).toBe(0);
  });

  it('not logged in: NOT_LOGGED_IN before any request, no key left behind', async () => {
    const w = testWallet(env.sandbox);
    const { error, legs } = await failing(w, () => w.wallet.exportWallet(customer.accountId));
    expect(error.code).toBe('NOT_LOGGED_IN');
    expect(legs).toHaveLength(0);
    expect(await recipientKeys(w)).toBe(0);
    expect((await failing(w, () => w.wallet.exportWallet())).error.code).toBe('NOT_LOGGED_IN');
  });

  it('the recipient key never reaches storage: no write during an export, no ECDH key stored while it is in flight', async () => {
    const inner = createMemoryBackend();
    const writes: string[] = [];
    const observed: KeyStoreBackend = {
      kind: inner.kind,
      get: (key) => inner.get(key),
      set: (key, value) => {
        writes.push(key);
        return inner.set(key, value);
      },
      delete: (key) => inner.delete(key),
      entries: () => inner.entries(),
      clear: () => inner.clear(),
    };
    // Looked at between the challenge and the signed leg: the recipient key exists then (its public
    // key went out in leg 1) and the envelope has not come back yet.
    let midCall: { entries: Array<[string, unknown]>; stored: number } | undefined;
    const w = testWallet(env.sandbox, {
      backend: observed,
      onBeforeSign: async (request) => {
        if (request.purpose === 'export-wallet') midCall = { entries: await inner.entries(), stored: (await w.keyStore.list()).length };
      },
    });
    await emailLogin(w.wallet, customer.accountId);
    const storedBefore = (await w.keyStore.list()).length;
    const writesBefore = writes.length;

    const { result, wire } = await counted(w, () => w.wallet.exportWallet());
    expect(validateMnemonic(result, wordlist)).toBe(true);
    const sent = (JSON.parse(wire[0]!.body!) as { clientPublicKey: string }).clientPublicKey;
    expect(sent).toMatch(/^04[0-9a-f]{128}$/);

    expect(midCall).toBeDefined();
    expect(ecdhKeysIn(midCall!.entries)).toBe(0);
    expect(midCall!.stored).toBe(storedBefore);
    expect(JSON.stringify(midCall!.entries)).not.toContain(sent.slice(2, 66)); // not even its public key
    expect(writes.slice(writesBefore)).toEqual([]);
    expect(await recipientKeys(w)).toBe(0);
    w.wallet.dispose();
  });

  it('the key store has no purpose for an export key: it cannot be asked to keep one', async () => {
    const error = await t.keyStore.generate({ purpose: 'export-recipient' as 'session' }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
