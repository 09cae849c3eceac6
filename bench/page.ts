/**
 * The bench page: bundled by `buildPage` in bench/server.ts (esbuild) from the library's sources and run in
 * Chromium by bench/run.ts. Every function returns raw samples (ms); statistics are the runner's.
 * Nothing here runs at load except installing `globalThis.bench`.
 */
import {
  generateSessionKey,
  hexToBytes,
  signerFromKey,
  stamp,
  utf8Encode,
} from '../src/crypto/index.js';
import { buildEncryptedOtpBundle, openExportBundle } from '../src/crypto/enclave.js';
import { importHpkeRecipientKey } from '../test/helpers/hpke-keys.js';
import { createIndexedDbBackend, createKeyStore, type KeyStore } from '../src/keys/index.js';
import { createClient, type RequestLogEntry } from '../src/transport/index.js';
import { openSealedSessionKey } from '../src/legacy.js';
import type { ActionRun, ActionSetup, BenchPage, BundleRun, KeyStoreRun, LoginRun, PageInfo, StampRun } from './types.js';

const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;
const now = (): number => performance.now();

/**
 * An ASCII, JSON-shaped payload of exactly `size` bytes (like a payloadToSign: ids, a body, a digest),
 * as the library receives one. The body is built with one array join (a flat string; appending a
 * character at a time left V8 a rope of ~2,000 pieces that TextEncoder walked on every call, which no
 * real payload is), and the payload is then taken the way the transport takes it: the 202 body through
 * a real `Response`, `response.text()` and `JSON.parse` (src/transport/http.ts and errors.ts), so it is
 * a fresh flat string from the JSON parser. Same bytes as the earlier `+=` version (same generator).
 */
async function payloadOf(size: number): Promise<string> {
  const head = '{"requestId":"Request:7d3f0c2e-3b1a-4c55-9a0e-1f2d3c4b5a69","body":"';
  const tail = '"}';
  const fill = size - head.length - tail.length;
  if (fill < 0) throw new Error(`payload size ${size} is below the ${head.length + tail.length}-byte frame`);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let seed = 0x2545f491;
  const chars = new Array<string>(fill);
  for (let i = 0; i < fill; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    chars[i] = alphabet[seed >>> 26]!;
  }
  const built = head + chars.join('') + tail;
  const text = await new Response(JSON.stringify({ payloadToSign: built, requestId: 'Request:bench', expiresAt: '2099-01-01T00:00:00Z' })).text();
  const payload = (JSON.parse(text) as { payloadToSign: string }).payloadToSign;
  if (payload !== built || payload.length !== size) throw new Error('payload did not survive the JSON round trip');
  return payload;
}

/** A key store on its own IndexedDB database (so the runs do not see each other's records). */
function storeOn(dbName: string): KeyStore {
  return createKeyStore({ backend: createIndexedDbBackend({ dbName }), onFallback: (reason) => { throw new Error(`key store fell back to memory: ${reason}`); } });
}

async function requireIndexedDb(store: KeyStore): Promise<void> {
  const where = await store.ready();
  if (where !== 'indexeddb') throw new Error(`key store is on ${where}, not IndexedDB (${store.fallbackReason ?? 'no reason'})`);
}

function info(): PageInfo {
  // The timer's step: Chromium coarsens performance.now() (100 µs, or 5 µs when cross-origin isolated).
  let step = Infinity;
  let last = now();
  for (let i = 0; i < 200_000 && step > 0.001; i++) {
    const t = now();
    if (t !== last) {
      step = Math.min(step, t - last);
      last = t;
    }
  }
  return { userAgent: navigator.userAgent, crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency, timerStepMs: step };
}

let stampStoreSeq = 0;

async function stampVsRaw(args: { payloadBytes: number; iterations: number; warmup: number }): Promise<StampRun> {
  const payload = await payloadOf(args.payloadBytes);
  const bytes = utf8Encode(payload);
  if (bytes.length !== args.payloadBytes) throw new Error('payload is not ASCII');
  const dbName = `bench-stamp-${stampStoreSeq++}`;
  const writer = storeOn(dbName);
  await requireIndexedDb(writer);
  const stored = await writer.generate({ purpose: 'session' });
  // A second instance over the same database: a page after a reload, whose first stamp loads the key.
  const store = storeOn(dbName);
  const hex = stored.publicKeyHex;
  const signer = signerFromKey(stored);
  const subtle = crypto.subtle;
  const ops = [
    () => subtle.sign(ECDSA_SHA256, stored.privateKey, bytes),
    () => stamp(payload, signer),
    async () => stamp(payload, await store.signer(hex)),
    () => subtle.sign(ECDSA_SHA256, stored.privateKey, new TextEncoder().encode(payload)),
  ] as const;
  const rawSign: number[] = [];
  const stamps: number[] = [];
  const viaStore: number[] = [];
  const encodeAndSign: number[] = [];
  const ratio: number[] = [];
  const ratioToEncodeAndSign: number[] = [];
  const sinks = [rawSign, stamps, viaStore, encodeAndSign];
  // The first stamp through the store loads the key (probe + one read); everything after must hit the cache.
  await ops[2]();
  const readsBefore = store.stats.reads;
  const hitsBefore = store.stats.cacheHits;
  for (let i = 0; i < args.warmup; i++) for (const op of ops) await op();
  const times = [0, 0, 0, 0];
  for (let i = 0; i < args.iterations; i++) {
    // Rotate the order every iteration so each op runs in each position equally often.
    for (let k = 0; k < ops.length; k++) {
      const which = (i + k) % ops.length;
      const t0 = now();
      await ops[which]!();
      times[which] = now() - t0;
    }
    for (let k = 0; k < ops.length; k++) sinks[k]!.push(times[k]!);
    ratio.push(times[1]! / Math.max(times[0]!, 1e-6));
    ratioToEncodeAndSign.push(times[1]! / Math.max(times[3]!, 1e-6));
  }
  return {
    payloadBytes: args.payloadBytes,
    iterations: args.iterations,
    warmup: args.warmup,
    rawSign,
    stamp: stamps,
    stampViaStore: viaStore,
    encodeAndSign,
    ratio,
    ratioToEncodeAndSign,
    storeStampsAfterFirst: args.warmup + args.iterations,
    storeReadsAfterFirst: store.stats.reads - readsBefore,
    storeCacheHitsAfterFirst: store.stats.cacheHits - hitsBefore,
  };
}

async function keyStore(args: { iterations: number; warmup: number }): Promise<KeyStoreRun> {
  const store = storeOn('bench-keys');
  await requireIndexedDb(store);
  const generateOnly: number[] = [];
  const generateAndStore: number[] = [];
  for (let i = 0; i < args.warmup; i++) {
    await generateSessionKey();
    await store.generate({ purpose: 'session' });
  }
  let loadHex = '';
  for (let i = 0; i < args.iterations; i++) {
    // Alternate which one runs first, as above.
    for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const t0 = now();
      if (which === 0) await generateSessionKey();
      else loadHex = (await store.generate({ purpose: 'session' })).publicKeyHex;
      (which === 0 ? generateOnly : generateAndStore).push(now() - t0);
    }
  }
  // Loading: every sample opens a new store instance (new IndexedDB connection, empty cache).
  const loadStoredKey: number[] = [];
  const loadStoredKeyColdStore: number[] = [];
  const loadOnce = async (cold: boolean): Promise<number> => {
    const fresh = storeOn('bench-keys');
    if (!cold) await fresh.ready();
    const t0 = now();
    const record = await fresh.get(loadHex);
    const ms = now() - t0;
    if (!record) throw new Error('stored key not found');
    return ms;
  };
  for (let i = 0; i < args.warmup; i++) {
    await loadOnce(false);
    await loadOnce(true);
  }
  for (let i = 0; i < args.iterations; i++) {
    for (const cold of i % 2 === 0 ? [false, true] : [true, false]) (cold ? loadStoredKeyColdStore : loadStoredKey).push(await loadOnce(cold));
  }
  await store.clear();
  return { iterations: args.iterations, warmup: args.warmup, generateOnly, generateAndStore, loadStoredKey, loadStoredKeyColdStore, backend: store.status };
}

async function bundles(args: Parameters<BenchPage['bundles']>[0]): Promise<BundleRun> {
  const session = await generateSessionKey();
  const legacyRecipient = await importHpkeRecipientKey(hexToBytes(args.vectors.credentialBundle.recipientPrivateKey));
  const exportRecipient = await importHpkeRecipientKey(hexToBytes(args.vectors.exportBundle.recipientPrivateKey));
  const exportSigner = (JSON.parse(args.vectors.exportBundle.bundle) as { enclaveQuorumPublic: string }).enclaveQuorumPublic;
  const ops = [
    () => buildEncryptedOtpBundle({ targetBundle: args.targetBundle, otpCode: '000000', sessionPublicKeyHex: session.publicKeyHex, trustedKeys: [args.enclavePublicKey] }),
    () => openSealedSessionKey({ bundle: args.vectors.credentialBundle.bundle, recipientKey: legacyRecipient }),
    async () => {
      const opened = await openExportBundle({ bundle: args.vectors.exportBundle.bundle, recipientKey: exportRecipient, trustedKeys: [exportSigner] });
      if (opened.mnemonic !== args.vectors.exportBundle.mnemonic) throw new Error('export bundle opened to the wrong mnemonic');
    },
  ] as const;
  const out: number[][] = [[], [], []];
  for (let i = 0; i < args.warmup; i++) for (const op of ops) await op();
  for (let i = 0; i < args.iterations; i++) {
    for (let k = 0; k < 3; k++) {
      const which = (i + k) % 3;
      const t0 = now();
      await ops[which]!();
      out[which]!.push(now() - t0);
    }
  }
  return { iterations: args.iterations, warmup: args.warmup, otpSeal: out[0]!, openSealedSessionKey: out[1]!, openExportBundle: out[2]! };
}

// ---- a signed action end to end: browser → proxy (/api) → sandbox ----

const requestLog: RequestLogEntry[] = [];
const client = createClient({ baseUrl: '/api', onRequest: (entry) => requestLog.push(entry) });
let session: { publicKeyHex: string } | undefined;

interface AuthMethodResponse { otpEncryptionTargetBundle?: string }
interface AuthSessionAnswer { id: string; expiresAt: string }

/** Email OTP login through the transport and the crypto core (the flows layer is not needed here). */
async function login(setup: ActionSetup): Promise<LoginRun> {
  const store = storeOn('bench-session');
  await requireIndexedDb(store);
  const before = requestLog.length;
  const t0 = now();
  const challenge = await client.request<AuthMethodResponse>({ method: 'POST', path: `/auth/credentials/${encodeURIComponent(setup.credentialId)}/challenge`, body: {} });
  if (typeof challenge.otpEncryptionTargetBundle !== 'string') throw new Error('challenge answered without otpEncryptionTargetBundle');
  const key = await store.generate({ purpose: 'session', accountId: setup.accountId });
  const encryptedOtpBundle = await buildEncryptedOtpBundle({
    targetBundle: challenge.otpEncryptionTargetBundle,
    otpCode: setup.otpCode,
    sessionPublicKeyHex: key.publicKeyHex,
    trustedKeys: [setup.enclavePublicKey],
  });
  const answer = await client.signed<AuthSessionAnswer>({
    method: 'POST',
    path: `/auth/credentials/${encodeURIComponent(setup.credentialId)}/verify`,
    body: { type: 'EMAIL_OTP', encryptedOtpBundle },
    signer: await store.signer(key.publicKeyHex),
    purpose: 'verify-otp',
  });
  if (!answer.id.startsWith('Session:')) throw new Error('verify did not answer a session');
  session = { publicKeyHex: key.publicKeyHex };
  return { ms: now() - t0, requests: requestLog.length - before, sessionPublicKeyHex: key.publicKeyHex };
}

async function actions(args: { iterations: number; warmup: number; accountId: string }): Promise<ActionRun> {
  if (!session) throw new Error('log in first');
  const hex = session.publicKeyHex;
  // A new store instance over the same database: the page after a reload, cache empty.
  const store = storeOn('bench-session');
  const path = `/internal-accounts/${encodeURIComponent(args.accountId)}`;
  const statuses: Record<string, number> = {};
  const one = async (i: number): Promise<{ ms: number; requests: number; reads: number; requestMs: number[] }> => {
    const requestsBefore = requestLog.length;
    const readsBefore = store.stats.reads;
    const t0 = now();
    await client.signed({
      method: 'PATCH',
      path,
      body: { nickname: `bench ${i}`, privateEnabled: i % 2 === 0 },
      getSigner: () => store.signer(hex),
      purpose: 'update-internal-account',
    });
    const ms = now() - t0;
    const entries = requestLog.slice(requestsBefore);
    for (const entry of entries) statuses[String(entry.status)] = (statuses[String(entry.status)] ?? 0) + 1;
    return { ms, requests: entries.length, reads: store.stats.reads - readsBefore, requestMs: entries.map((e) => e.ms) };
  };
  const latency: number[] = [];
  const requestsPerAction: number[] = [];
  const storeReadsPerAction: number[] = [];
  const requestMs: number[] = [];
  const outsideHttpMs: number[] = [];
  await store.ready(); // the probe's own reads are not a stamp's
  for (let i = 0; i < args.warmup + args.iterations; i++) {
    const r = await one(i);
    // Reads are counted from the very first action (the one that loads the key); latency after warm-up.
    storeReadsPerAction.push(r.reads);
    if (i >= args.warmup) {
      latency.push(r.ms);
      requestsPerAction.push(r.requests);
      requestMs.push(...r.requestMs);
      outsideHttpMs.push(r.ms - r.requestMs.reduce((sum, x) => sum + x, 0));
    }
  }
  return { iterations: args.iterations, warmup: args.warmup, latency, requestMs, outsideHttpMs, requestsPerAction, storeReadsPerAction, statuses };
}

async function fetchFloor(args: { iterations: number; warmup: number }): Promise<number[]> {
  const one = async (): Promise<number> => {
    const t0 = now();
    const res = await fetch('/ping', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    await res.text();
    return now() - t0;
  };
  for (let i = 0; i < args.warmup; i++) await one();
  const out: number[] = [];
  for (let i = 0; i < args.iterations; i++) out.push(await one());
  return out;
}

globalThis.bench = { info, stampVsRaw, keyStore, bundles, login, actions, fetchFloor };
