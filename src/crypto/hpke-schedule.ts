/**
 * RFC 9180 derivations for the one suite of wire reference §7, on WebCrypto HMAC-SHA256:
 * §4 LabeledExtract / LabeledExpand, §4.1 DHKEM ExtractAndExpand, §5.1 KeySchedule in base mode.
 * Internal to hpke.ts (tests read it to check key and base_nonce against the vector).
 */
import { utf8Encode } from './encoding.js';
import { concatBytes } from './bytes.js';
import { buf, subtle } from './webcrypto.js';

/** "KEM" ‖ I2OSP(0x0010, 2): DHKEM(P-256, HKDF-SHA256). */
const KEM_SUITE = [0x4b, 0x45, 0x4d, 0x00, 0x10];
/** "HPKE" ‖ KEM 0x0010 ‖ KDF 0x0001 (HKDF-SHA256) ‖ AEAD 0x0002 (AES-256-GCM). */
const HPKE_SUITE = [0x48, 0x50, 0x4b, 0x45, 0x00, 0x10, 0x00, 0x01, 0x00, 0x02];
const MODE_BASE = 0x00;

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const api = subtle();
  const k = await api.importKey('raw', buf(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await api.sign('HMAC', k, buf(data)));
}

/** "HPKE-v1" ‖ suite_id ‖ label. */
function labeled(suite: number[], label: string): Uint8Array {
  return concatBytes(utf8Encode('HPKE-v1'), new Uint8Array(suite), utf8Encode(label));
}

/**
 * LabeledExtract(salt, label, ikm) = HMAC(salt, "HPKE-v1" ‖ suite_id ‖ label ‖ ikm).
 * An empty salt stands for Nh = 32 zero bytes (RFC 5869 §2.2); HMAC pads short keys with zeros so
 * both are the same key, and WebCrypto refuses zero-length HMAC keys, so pass the 32 zeros.
 */
function labeledExtract(suite: number[], salt: Uint8Array, label: string, ikm: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  return hmac(salt.length ? salt : new Uint8Array(32), concatBytes(labeled(suite, label), ikm));
}

/**
 * LabeledExpand(prk, label, info, L) = HKDF-Expand(prk, I2OSP(L, 2) ‖ "HPKE-v1" ‖ suite_id ‖ label ‖ info, L).
 * Every L this suite needs (32, 32, 12) fits in one SHA-256 block: T(1) = HMAC(prk, labeled_info ‖ 0x01).
 */
async function labeledExpand(suite: number[], prk: Uint8Array, label: string, info: Uint8Array, length: number): Promise<Uint8Array<ArrayBuffer>> {
  const t1 = await hmac(prk, concatBytes(new Uint8Array([0, length]), labeled(suite, label), info, new Uint8Array([1])));
  return t1.slice(0, length);
}

/** DHKEM ExtractAndExpand: shared_secret from dh (the ECDH x-coordinate) and kem_context = enc ‖ pkRm. */
export async function kemSharedSecret(dh: Uint8Array, enc: Uint8Array, recipientPublic: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const prk = await labeledExtract(KEM_SUITE, new Uint8Array(0), 'eae_prk', dh);
  try {
    return await labeledExpand(KEM_SUITE, prk, 'shared_secret', concatBytes(enc, recipientPublic), 32);
  } finally {
    prk.fill(0);
  }
}

/** KeySchedule in base mode (psk = psk_id = ""): the AES-256-GCM key and base_nonce. */
export async function keySchedule(sharedSecret: Uint8Array, info: Uint8Array): Promise<{ key: Uint8Array<ArrayBuffer>; baseNonce: Uint8Array<ArrayBuffer> }> {
  const empty = new Uint8Array(0);
  const pskIdHash = await labeledExtract(HPKE_SUITE, empty, 'psk_id_hash', empty);
  const infoHash = await labeledExtract(HPKE_SUITE, empty, 'info_hash', info);
  const context = concatBytes(new Uint8Array([MODE_BASE]), pskIdHash, infoHash);
  const secret = await labeledExtract(HPKE_SUITE, sharedSecret, 'secret', empty);
  try {
    const key = await labeledExpand(HPKE_SUITE, secret, 'key', context, 32);
    const baseNonce = await labeledExpand(HPKE_SUITE, secret, 'base_nonce', context, 12);
    return { key, baseNonce };
  } finally {
    secret.fill(0);
  }
}
