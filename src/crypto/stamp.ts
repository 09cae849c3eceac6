/**
 * The `Service-Wallet-Signature` stamp (wire reference §3):
 * base64url_nopad(utf8(JSON.stringify({ publicKey, scheme, signature }))).
 *
 * `stamp()` is on every signed request, and its budget is set against a bare
 * `crypto.subtle.sign` (BENCHMARKS.md: ≤ 1.15× at 2 KB), so the path for our own keys avoids every
 * allocation and pass it can: see `stampWithKey`.
 */
import { WalletError, invalidArgument } from '../errors.js';
import { base64urlDecode, base64urlInto, bytesToHex, hexToBytes, textEncoder, utf8Decode, utf8Encode } from './encoding.js';
import { MAX_DER_SIGNATURE_LENGTH, derFromP1363, p1363FromDer, writeDerFromP1363 } from './der.js';
import { compressPublicKey, decompressPublicKey } from './p256.js';
import type { SessionKey } from './keypair.js';
import { ECDSA_SHA256, buf, isKey, subtle } from './webcrypto.js';

export const SIGNATURE_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';

/** Anything that can sign bytes: returns a DER ECDSA P-256/SHA-256 signature. */
export interface Signer {
  /** The signing key's public key as hex (compressed preferred; an uncompressed one is compressed for the stamp). */
  readonly publicKeyHex: string;
  sign(data: Uint8Array): Promise<Uint8Array>;
}

export interface ParsedStamp {
  publicKey: string;
  scheme: string;
  signature: string;
}

type KeyLike = Pick<SessionKey, 'privateKey' | 'publicKeyHex'>;

/**
 * CryptoKeys already found fit to sign. A CryptoKey's type, algorithm and usages are fixed at
 * creation, so one check per key is enough; reading them (DOM getters, a fresh usages array) cost a
 * few microseconds on every stamp made with a key rather than a signer. Only real CryptoKeys of this
 * realm are remembered; anything else is checked every time.
 */
let signingKeysSeen: WeakSet<CryptoKey> | undefined;

/** A validated WebCrypto ECDSA P-256 signing key, or INVALID_ARGUMENT. */
function signingKey(key: KeyLike): CryptoKey {
  if (typeof key !== 'object' || key === null) throw invalidArgument('key', 'a session key');
  const { privateKey } = key;
  if (signingKeysSeen?.has(privateKey) !== true) {
    if (!isKey(privateKey, 'private', 'ECDSA') || !privateKey.usages.includes('sign')) {
      throw invalidArgument('key.privateKey', "an ECDSA P-256 private CryptoKey with the 'sign' usage");
    }
    if (typeof CryptoKey === 'function' && privateKey instanceof CryptoKey) (signingKeysSeen ??= new WeakSet()).add(privateKey);
  }
  if (typeof key.publicKeyHex !== 'string') throw invalidArgument('key.publicKeyHex', 'a hex string');
  return privateKey;
}

/**
 * The signers `signerFromKey` makes. The private field is a brand no other object can carry, so
 * `stamp()` knows the signature comes from WebCrypto's r‖s through our own DER conversion and may
 * sign and format it directly; any other Signer goes through `sign()` and the DER re-check.
 */
class KeySigner implements Signer {
  readonly #privateKey: CryptoKey;
  readonly publicKeyHex: string;
  /** An own property (not a prototype method), so `const { sign } = signer` keeps working. */
  readonly sign: (data: Uint8Array) => Promise<Uint8Array>;

  constructor(privateKey: CryptoKey, publicKeyHex: string) {
    this.#privateKey = privateKey;
    this.publicKeyHex = publicKeyHex;
    this.sign = async (data) => derFromP1363(new Uint8Array(await subtle().sign(ECDSA_SHA256, privateKey, buf(data))));
  }

  /** The private key of a signer made by `signerFromKey`; undefined for anything else. */
  static keyOf(value: unknown): CryptoKey | undefined {
    return typeof value === 'object' && value !== null && #privateKey in value ? value.#privateKey : undefined;
  }
}

/** A Signer over a WebCrypto ECDSA P-256 private key: WebCrypto's r‖s is converted to minimal DER. */
export function signerFromKey(key: KeyLike): Signer {
  return new KeySigner(signingKey(key), key.publicKeyHex);
}

function isSigner(value: unknown): value is Signer {
  return typeof value === 'object' && value !== null && typeof (value as { sign?: unknown }).sign === 'function';
}

/** Lowercase compressed hex for the stamp; a compressed key is only shape-checked (it is our own key). */
function stampPublicKey(hex: string): string {
  if (typeof hex !== 'string') throw invalidArgument('signer.publicKeyHex', 'a hex string');
  if (/^0[23][0-9a-fA-F]{64}$/.test(hex)) return hex.toLowerCase();
  try {
    // Only the uncompressed form is left to accept: compressing it needs no square root.
    return bytesToHex(compressPublicKey(hexToBytes(hex)));
  } catch (cause) {
    throw new WalletError('INVALID_ARGUMENT', 'signer.publicKeyHex must be a P-256 public key in hex', { cause });
  }
}

// The stamp JSON is `{"publicKey":"<66 hex>","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"`
// (14 + 66 + 12 + 28 + 15 = 135 bytes, a multiple of 3) followed by `<DER hex>"}`. Base64 maps each
// 3 bytes to 4 characters on their own, so the base64url of that prefix is the first 180 characters
// of every stamp by the key: computed once per key and kept for the last key used (a page stamps
// with one session key at a time). No value needs JSON escaping (hex and a constant), so the
// concatenation is byte for byte what JSON.stringify gives, keys in the same order.
let prefixKeyHex: string | undefined;
let prefixBase64url = '';

/** The base64url of the stamp JSON up to the signature's value, for `publicKeyHex` (validated on a miss). */
function stampPrefix(publicKeyHex: string): string {
  if (publicKeyHex !== prefixKeyHex) {
    const json = utf8Encode(`{"publicKey":"${stampPublicKey(publicKeyHex)}","scheme":"${SIGNATURE_SCHEME}","signature":"`);
    prefixBase64url = base64urlString(json, json.length);
    prefixKeyHex = publicKeyHex;
  }
  return prefixBase64url;
}

// The stamp after the prefix is the base64url of `<DER hex>"}`: at most 72 DER bytes, 146 ASCII
// bytes, 196 base64url codes. The three buffers are used synchronously, so one set serves every call.
// The string is made by one String.fromCharCode call over the codes: in Chromium a TextDecoder (a
// DOM call) cost 2–3 µs more per stamp, and growing the string four characters at a time was no faster.
const SUFFIX_ASCII_MAX = 2 * MAX_DER_SIGNATURE_LENGTH + 2;
let derScratch: Uint8Array | undefined;
let suffixAscii: Uint8Array | undefined;
let suffixCodes: Uint8Array | undefined;

/** The base64url of bytes[0, length) (at most SUFFIX_ASCII_MAX bytes), through the reused codes buffer. */
function base64urlString(bytes: Uint8Array, length: number): string {
  const codes = (suffixCodes ??= new Uint8Array(Math.ceil((SUFFIX_ASCII_MAX * 4) / 3)));
  return String.fromCharCode.apply(null, codes.subarray(0, base64urlInto(bytes, length, codes)) as unknown as number[]);
}

/** The base64url of `<hex of der[0, length)>"}` (length ≤ MAX_DER_SIGNATURE_LENGTH): the stamp after its prefix. */
function suffixFromDer(der: Uint8Array, length: number): string {
  const ascii = (suffixAscii ??= new Uint8Array(SUFFIX_ASCII_MAX));
  let o = 0;
  for (let i = 0; i < length; i++) {
    const hi = der[i]! >> 4;
    const lo = der[i]! & 15;
    ascii[o++] = hi < 10 ? 48 + hi : 87 + hi; // 0-9, a-f
    ascii[o++] = lo < 10 ? 48 + lo : 87 + lo;
  }
  ascii[o++] = 0x22; // "
  ascii[o++] = 0x7d; // }
  return base64urlString(ascii, o);
}

/** The stamp after its prefix for WebCrypto's r‖s: its minimal DER (written from r‖s, no allocation) as above. */
function signatureSuffix(rs: Uint8Array): string {
  const der = (derScratch ??= new Uint8Array(MAX_DER_SIGNATURE_LENGTH));
  return suffixFromDer(der, writeDerFromP1363(rs, der, 0));
}

/**
 * The formatting of `stamp()` for a signer made by `signerFromKey` or a session key: the header
 * value for a 64-byte r‖s signature by the key whose public key is `publicKeyHex`. Exported for the
 * known-answer test (the vector's signature through this path must give the vector's header).
 */
export function stampFromP1363(publicKeyHex: string, rs: Uint8Array): string {
  return stampPrefix(publicKeyHex) + signatureSuffix(rs);
}

// The payload's UTF-8 goes into one reused buffer rather than a new ArrayBuffer per stamp, and the
// buffer is free again as soon as sign() has returned: WebCrypto copies the data before it returns.
// "Let data be the result of getting a copy of the bytes held by the data parameter" is a step of
// SubtleCrypto.sign itself, taken before it returns the promise and goes on in parallel (W3C Web
// Cryptography API); Chromium makes that copy first thing (CopyBytes in blink's SubtleCrypto::sign)
// and Node does too (its SignJob copies its input in async mode). A stamp started while another is
// still signing therefore overwrites nothing the first one needs (tested with overlapping stamps and
// with the input overwritten right after sign() returns, in Node and in Chromium). Were an engine
// ever to read the bytes late, the damage would be a signature over the wrong bytes (a mix of this
// page's own payloads), which the service rejects. The buffer keeps the last payload's bytes until
// the next stamp, no more than the page holds anyway. Payloads over SCRATCH_MAX_UNITS UTF-16 units
// get a fresh array, so the buffer stays at most 3 × 64 Ki bytes.
const SCRATCH_MAX_UNITS = 65_536;
let payloadScratch: Uint8Array<ArrayBuffer> | undefined;

/** The payload's UTF-8: a view of the scratch buffer, valid until the next call. */
function encodePayload(payload: string): Uint8Array<ArrayBuffer> {
  const units = payload.length;
  if (units > SCRATCH_MAX_UNITS) return utf8Encode(payload);
  let out = payloadScratch;
  // ASCII needs one byte per UTF-16 unit; what does not fit is encoded again at the worst case, 3 per unit.
  if (out === undefined || out.length < units) out = payloadScratch = new Uint8Array(Math.max(units, 4096));
  const { read, written } = textEncoder().encodeInto(payload, out);
  if (read === units) return out.subarray(0, written);
  out = payloadScratch = new Uint8Array(3 * units);
  return out.subarray(0, textEncoder().encodeInto(payload, out).written);
}

/** Signs the payload's UTF-8 with our own key and formats the stamp, in one promise step. */
function stampWithKey(payload: string, privateKey: CryptoKey, prefix: string): Promise<string> {
  return subtle()
    .sign(ECDSA_SHA256, privateKey, encodePayload(payload))
    .then((signature) => prefix + signatureSuffix(new Uint8Array(signature)));
}

/** A custom Signer: its own sign() over a fresh copy of the payload, and its DER re-checked. */
async function stampWithSigner(payload: string, signer: Signer): Promise<string> {
  const prefix = stampPrefix(signer.publicKeyHex);
  const der = await signer.sign(utf8Encode(payload));
  // Re-check the signer's output so a custom Signer cannot put non-DER bytes on the wire (strict DER
  // of a P-256 signature is at most MAX_DER_SIGNATURE_LENGTH bytes, which suffixFromDer relies on).
  p1363FromDer(der);
  return prefix + suffixFromDer(der, der.length);
}

/**
 * Signs the exact UTF-8 bytes of `payloadToSign` (never re-parsed or trimmed) and returns the header
 * value. Key order is publicKey, scheme, signature. Never throws: every failure is a rejection.
 */
export function stamp(payloadToSign: string, signer: Signer | KeyLike): Promise<string> {
  try {
    if (typeof payloadToSign !== 'string') throw invalidArgument('payloadToSign', 'a string');
    const ownKey = KeySigner.keyOf(signer);
    if (ownKey !== undefined) return stampWithKey(payloadToSign, ownKey, stampPrefix(signer.publicKeyHex));
    if (isSigner(signer)) return stampWithSigner(payloadToSign, signer);
    const privateKey = signingKey(signer);
    return stampWithKey(payloadToSign, privateKey, stampPrefix(signer.publicKeyHex));
  } catch (error) {
    return Promise.reject(error);
  }
}

function malformedStamp(why: string, cause?: unknown): WalletError {
  return new WalletError('SIGNATURE_MALFORMED', `stamp: ${why}`, cause === undefined ? {} : { cause });
}

/**
 * Strict parse of a stamp header value: unpadded base64url of UTF-8 JSON that is an object with
 * exactly the string fields publicKey (compressed P-256 hex, on the curve), scheme (= SIGNATURE_SCHEME)
 * and signature (strict DER hex). Anything else → SIGNATURE_MALFORMED. Hex may be of either case and
 * is returned as sent. Decision: unknown extra fields are rejected — our stamps never carry any.
 */
export function parseStamp(headerValue: string): ParsedStamp {
  if (typeof headerValue !== 'string' || headerValue.length === 0) throw malformedStamp('empty or not a string');
  let value: unknown;
  try {
    value = JSON.parse(utf8Decode(base64urlDecode(headerValue, 'stamp')));
  } catch (cause) {
    throw malformedStamp('not base64url-encoded UTF-8 JSON', cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformedStamp('not a JSON object');
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length !== 3) throw malformedStamp('expected exactly publicKey, scheme and signature');
  const { publicKey, scheme, signature } = fields;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') {
    throw malformedStamp('publicKey, scheme and signature must be strings');
  }
  if (scheme !== SIGNATURE_SCHEME) throw malformedStamp(`unsupported scheme`);
  if (!/^0[23][0-9a-fA-F]{64}$/.test(publicKey)) throw malformedStamp('publicKey must be compressed P-256 hex');
  try {
    decompressPublicKey(hexToBytes(publicKey));
    p1363FromDer(hexToBytes(signature, 'signature'));
  } catch (cause) {
    throw malformedStamp(cause instanceof WalletError ? cause.message : 'bad publicKey or signature', cause);
  }
  return { publicKey, scheme, signature };
}
