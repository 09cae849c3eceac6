// Keys are non-extractable everywhere the library creates them. Two checks:
// 1. the source: every crypto.subtle generateKey / importKey / exportKey call site under src/
//    (the sandbox aside: it plays the service, whose enclave and delegated keys are server-held
//    node:crypto keys) is read, and each one that makes a private or secret key passes a literal
//    `false` as `extractable`; the one documented exception is listed below with its reason;
// 2. at run time: crypto.subtle is watched while the library makes every kind of key (session and
//    recipient keys, the key store's four purposes and its probe, the OTP bundle's ephemeral key,
//    HPKE opening, the legacy sealed key, both key plans) and every private or secret key it
//    returned is checked: `extractable === false`, and exporting it as pkcs8 or jwk fails.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateRecipientKey, generateSessionKey, hexToBytes } from '../../src/crypto/index.js';
import { buildEncryptedOtpBundle, openExportBundle } from '../../src/crypto/enclave.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { createLegacyKeyPlan, openSealedSessionKey } from '../../src/legacy.js';
import { KEY_PURPOSES, createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { createKeyPlan } from '../../src/session/index.js';
import { createEnclave } from '../../src/sandbox/enclave.js';
import { isWalletError } from '../../src/errors.js';
import { vectors } from './helpers/outcome.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/** Call sites allowed to make an extractable private key, with the reason (none since the test-only
 * importHpkeRecipientKey left src/ and lost its extractable step). */
const EXCEPTIONS: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'sandbox' ? [] : sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The top-level arguments of the call whose '(' is at `open`. */
function callArguments(text: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      depth--;
      if (depth === 0) {
        args.push(text.slice(start, i).trim());
        return args.filter((a) => a !== '');
      }
    } else if (c === ',' && depth === 1) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  throw new Error(`unbalanced call at ${open}`);
}

interface CallSite {
  file: string;
  line: number;
  method: 'generateKey' | 'importKey' | 'exportKey';
  args: string[];
}

function callSites(): CallSite[] {
  const sites: CallSite[] = [];
  for (const path of sourceFiles(SRC)) {
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(/\.(generateKey|importKey|exportKey)\s*\(/g)) {
      const open = m.index + m[0].length - 1;
      sites.push({
        file: relative(ROOT, path).split('\\').join('/'),
        line: text.slice(0, m.index).split('\n').length,
        method: m[1] as CallSite['method'],
        args: callArguments(text, open),
      });
    }
  }
  return sites;
}

const asymmetric = (algorithm: string): boolean => /ECDSA|ECDH/.test(algorithm);

/** Why a call site may make an exportable private or secret key, or undefined when it cannot. */
function exportableKeyAt(site: CallSite): string | undefined {
  const [first = '', second = '', third = '', fourth = ''] = site.args;
  const format = first.replace(/['"]/g, '');
  if (site.method === 'generateKey') return second === 'false' ? undefined : `generateKey(${first}, extractable ${second})`;
  if (site.method === 'exportKey') {
    // Exporting is only for public keys: the raw point of a public key.
    return format === 'raw' && /publicKey/.test(second) ? undefined : `exportKey(${first}, ${second})`;
  }
  // importKey(format, keyData, algorithm, extractable, usages)
  const makesPrivate = format === 'pkcs8' || (format === 'jwk' && /\bd\b/.test(second));
  const makesSecret = format === 'raw' && !asymmetric(third);
  if (!makesPrivate && !makesSecret) return undefined; // a public key (raw point, spki, jwk without d)
  return fourth === 'false' ? undefined : `importKey(${first}, …, ${third}, extractable ${fourth})`;
}

describe('source: every WebCrypto key the library makes', () => {
  const sites = callSites();

  it('finds the call sites (keypair, hpke, legacy, key store)', () => {
    const files = new Set(sites.map((s) => s.file));
    for (const f of ['src/crypto/keypair.ts', 'src/crypto/hpke.ts', 'src/legacy.ts']) expect(files.has(f), [...files].join(', ')).toBe(true);
    expect(sites.filter((s) => s.method !== 'exportKey').length).toBeGreaterThanOrEqual(8);
  });

  it('makes every private and secret key with a literal extractable: false (documented exceptions aside)', () => {
    const violations: string[] = [];
    const used = new Set<string>();
    for (const site of sites) {
      const problem = exportableKeyAt(site);
      if (problem === undefined) continue;
      const id = `${site.file} ${site.method} ${site.args[0]?.replace(/['"]/g, '')}`;
      if (EXCEPTIONS[id] !== undefined) {
        used.add(id);
        continue;
      }
      violations.push(`${site.file}:${site.line} ${problem}`);
    }
    expect(violations).toEqual([]);
    // An exception that no longer matches anything must be removed from the list.
    expect([...used].sort()).toEqual(Object.keys(EXCEPTIONS).sort());
  });

  it('the reader flags what it should (checked on made-up call sites)', () => {
    const site = (method: CallSite['method'], args: string[]): CallSite => ({ file: 'x.ts', line: 1, method, args });
    expect(exportableKeyAt(site('generateKey', ['ECDSA_P256', 'true', "['sign']"]))).toBeDefined();
    expect(exportableKeyAt(site('generateKey', ['ECDH_P256', 'extractable', '[]']))).toBeDefined();
    expect(exportableKeyAt(site('importKey', ["'pkcs8'", 'buf(pkcs8)', 'ECDSA_P256', 'true', "['sign']"]))).toBeDefined();
    expect(exportableKeyAt(site('importKey', ["'jwk'", "{ kty: 'EC', crv: 'P-256', d, x, y }", 'ECDH_P256', 'true', '[]']))).toBeDefined();
    expect(exportableKeyAt(site('importKey', ["'raw'", 'key', "'AES-GCM'", 'true', "['encrypt']"]))).toBeDefined();
    expect(exportableKeyAt(site('exportKey', ["'pkcs8'", 'privateKey']))).toBeDefined();
    expect(exportableKeyAt(site('importKey', ["'raw'", 'buf(raw)', 'ECDSA_P256', 'true', "['verify']"]))).toBeUndefined();
    expect(exportableKeyAt(site('importKey', ["'jwk'", "{ kty: 'EC', crv: 'P-256', x, y }", 'ECDH_P256', 'true', '[]']))).toBeUndefined();
    expect(exportableKeyAt(site('exportKey', ["'raw'", 'recipientKey.publicKey']))).toBeUndefined();
  });

  it('does not call @hpke/core or another library to generate keys (they make extractable ones)', () => {
    for (const path of sourceFiles(SRC)) {
      const text = readFileSync(path, 'utf8');
      expect(/\b(generateKeyPair|deriveKeyPair)\s*\(/.test(text), relative(ROOT, path)).toBe(false);
    }
  });
});

describe('run time: every key made while the library works', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('session, recipient, key-store, probe, OTP seal, export open, legacy open, key plans: all private and secret keys non-extractable', async () => {
    // Inputs prepared before watching (with the tests' importHpkeRecipientKey, checked below).
    const legacyRecipient = await importHpkeRecipientKey(hexToBytes(vectors.credentialBundle.recipientPrivateKey));
    const exportRecipient = await importHpkeRecipientKey(hexToBytes(vectors.exportBundle.recipientPrivateKey));
    const enclave = createEnclave();
    const targetBundle = enclave.signedBundle(Buffer.from(JSON.stringify({ targetPublic: vectors.otpSeal.recipientPublicKeyUncompressed })));

    const made: { how: string; key: CryptoKey }[] = [];
    const subtle = globalThis.crypto.subtle;
    const record = (how: string, result: unknown): void => {
      const keys = result instanceof CryptoKey ? [result] : [(result as CryptoKeyPair).privateKey, (result as CryptoKeyPair).publicKey];
      for (const key of keys) if (key instanceof CryptoKey && key.type !== 'public') made.push({ how, key });
    };
    const generate = subtle.generateKey.bind(subtle) as (...a: unknown[]) => Promise<unknown>;
    const importKey = subtle.importKey.bind(subtle) as (...a: unknown[]) => Promise<unknown>;
    vi.spyOn(subtle, 'generateKey').mockImplementation((async (...a: unknown[]) => {
      const result = await generate(...a);
      record(`generateKey ${JSON.stringify(a[0])}`, result);
      return result;
    }) as typeof subtle.generateKey);
    vi.spyOn(subtle, 'importKey').mockImplementation((async (...a: unknown[]) => {
      const result = await importKey(...a);
      record(`importKey ${String(a[0])} ${JSON.stringify(a[2])}`, result);
      return result;
    }) as typeof subtle.importKey);

    const returned: CryptoKey[] = [];
    returned.push((await generateSessionKey()).privateKey, (await generateRecipientKey()).privateKey);
    const store = createKeyStore({ backend: createMemoryBackend() });
    await store.ready();
    for (const purpose of KEY_PURPOSES) returned.push((await store.generate({ purpose, accountId: 'InternalAccount:1' })).privateKey);
    const sessionKey = await generateSessionKey();
    await buildEncryptedOtpBundle({ targetBundle, otpCode: '000000', sessionPublicKeyHex: sessionKey.publicKeyHex, trustedKeys: [enclave.publicKey] });
    await openExportBundle({ bundle: vectors.exportBundle.bundle, recipientKey: exportRecipient, trustedKeys: 'skip-verification' });
    returned.push((await openSealedSessionKey({ bundle: vectors.credentialBundle.bundle, recipientKey: legacyRecipient })).privateKey);
    returned.push((await createKeyPlan()).key.privateKey);
    const legacyPlan = await createLegacyKeyPlan();
    expect(legacyPlan.clientPublicKey).toMatch(/^04[0-9a-f]{128}$/);

    vi.restoreAllMocks();
    const kinds = new Set(made.map((m) => m.how.split(' ')[0]! + ' ' + m.key.algorithm.name));
    // Private ECDSA and ECDH keys, and the HPKE schedule's secret HMAC / AES-GCM keys, were all seen.
    for (const kind of ['generateKey ECDSA', 'generateKey ECDH', 'importKey ECDSA', 'importKey HMAC', 'importKey AES-GCM']) {
      expect(kinds.has(kind), [...kinds].join(', ')).toBe(true);
    }
    const leaks = made.filter((m) => m.key.extractable).map((m) => `${m.how}: ${m.key.type} ${m.key.algorithm.name}`);
    expect(leaks).toEqual([]);
    for (const key of [...returned, ...made.filter((m) => m.key.type === 'private').map((m) => m.key)]) {
      expect(key.extractable).toBe(false);
      for (const format of ['pkcs8', 'jwk'] as const) {
        await expect(subtle.exportKey(format, key)).rejects.toThrow();
      }
    }
    expect(made.length).toBeGreaterThan(15);
  });

  it('the tests\' importHpkeRecipientKey returns a non-extractable private key', async () => {
    const pair = await importHpkeRecipientKey(hexToBytes(vectors.exportBundle.recipientPrivateKey));
    expect(pair.privateKey.extractable).toBe(false);
    await expect(globalThis.crypto.subtle.exportKey('jwk', pair.privateKey)).rejects.toThrow();
  });

  it('the key store refuses to keep an extractable private key', async () => {
    const pair = await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const store = createKeyStore({ backend: createMemoryBackend() });
    const publicKeyHex = (await generateSessionKey()).publicKeyHex;
    const error = await store.put({ privateKey: pair.privateKey, publicKey: pair.publicKey, publicKeyHex, purpose: 'session' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isWalletError(error, 'INVALID_ARGUMENT')).toBe(true);
  });
});
