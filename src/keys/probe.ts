/**
 * First-use probe: can this backend hold a non-extractable CryptoKey and give it back usable?
 * Safari in private browsing or Lockdown Mode throws DataCloneError on storing a CryptoKey; Firefox
 * private mode and disabled storage fail to open IndexedDB; a blocked open may never settle.
 */
import { generateSessionKey, signerFromKey } from '../crypto/index.js';
import { IndexedDbMissingError } from './backends.js';
import type { FallbackReason, KeyStoreBackend } from './types.js';

export interface ProbeResult {
  ok: boolean;
  reason?: FallbackReason;
  cause?: unknown;
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string'
    ? (error as { name: string }).name
    : undefined;
}

function classify(error: unknown): FallbackReason {
  if (error instanceof IndexedDbMissingError) return 'indexeddb-missing';
  if (errorName(error) === 'DataCloneError') return 'cryptokey-not-storable';
  return 'indexeddb-open-failed';
}

function looksLikePrivateKey(value: unknown): value is CryptoKey {
  if (typeof value !== 'object' || value === null) return false;
  const k = value as Partial<CryptoKey>;
  return k.type === 'private' && k.extractable === false && (k.algorithm as { name?: unknown } | undefined)?.name === 'ECDSA';
}

async function storeAndReadBack(backend: KeyStoreBackend, onRead: () => void, onWrite: () => void): Promise<ProbeResult> {
  const key = await generateSessionKey();
  const probeKey = `probe:${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
  try {
    onWrite();
    await backend.set(probeKey, { privateKey: key.privateKey });
  } catch (cause) {
    return { ok: false, reason: classify(cause), cause };
  }
  try {
    onRead();
    const back = (await backend.get(probeKey)) as { privateKey?: unknown } | undefined;
    const privateKey = back?.privateKey;
    if (!looksLikePrivateKey(privateKey)) return { ok: false, reason: 'cryptokey-readback-failed' };
    // Usable, not just present: sign one byte with the key as read back.
    await signerFromKey({ privateKey, publicKeyHex: key.publicKeyHex }).sign(new Uint8Array([0]));
    return { ok: true };
  } catch (cause) {
    return { ok: false, reason: 'cryptokey-readback-failed', cause };
  } finally {
    onWrite();
    await backend.delete(probeKey).catch(() => undefined);
  }
}

/** Never rejects for storage problems: returns ok or the reason to fall back. */
export async function probeKeyStorage(
  backend: KeyStoreBackend,
  timeoutMs: number,
  counters: { onRead: () => void; onWrite: () => void },
): Promise<ProbeResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'indexeddb-timeout' }), timeoutMs);
  });
  try {
    return await Promise.race([storeAndReadBack(backend, counters.onRead, counters.onWrite), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
