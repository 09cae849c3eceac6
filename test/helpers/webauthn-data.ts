/**
 * The bytes a software WebAuthn authenticator produces ("none" attestation, ES256, a signature
 * counter): minimal CBOR, authenticator data, client data JSON and the assertion signature. Node-only
 * (node:crypto, Buffer). Shared by the two software authenticators of the tests, which differ only in
 * the face they show: test/flows/helpers/authenticator.ts answers navigator.credentials for the
 * library's flows; test/sandbox/helpers/webauthn.ts hands the sandbox's HTTP tests wire-shaped fields.
 */
import { createHash, sign, type KeyObject } from 'node:crypto';

export type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 256) return [(major << 5) | 24, n];
  if (n < 65536) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** Minimal CBOR (definite lengths only) of unsigned/negative integers, text, bytes, arrays and maps. */
export function cbor(v: Cbor): number[] {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return [...head(3, b.length), ...b];
  }
  if (v instanceof Uint8Array) return [...head(2, v.length), ...v];
  if (Array.isArray(v)) return [...head(4, v.length), ...v.flatMap(cbor)];
  return [...head(5, v.size), ...[...v.entries()].flatMap(([k, x]) => [...cbor(k), ...cbor(x)])];
}

export const sha256 = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();
const u32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];

/**
 * clientDataJSON of a ceremony (`webauthn.create` or `webauthn.get`) over a base64url challenge;
 * `frame` replaces or adds `crossOrigin` / `topOrigin` (a ceremony in a frame of another origin;
 * a member set to undefined is left out).
 */
export function clientData(type: string, challenge: string, origin: string, frame: { crossOrigin?: unknown; topOrigin?: unknown } = {}): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false, ...frame }));
}

/** Registration authenticator data: rpIdHash, flags UP|UV|AT, counter, zero AAGUID, credential id, COSE ES256 key (x, y). */
export function registrationAuthData(rpId: string, counter: number, credentialId: Uint8Array, x: Uint8Array, y: Uint8Array): Uint8Array {
  const cose = new Map<Cbor, Cbor>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, x],
    [-3, y],
  ]);
  return new Uint8Array([
    ...sha256(rpId),
    0x45,
    ...u32(counter),
    ...new Uint8Array(16),
    credentialId.length >> 8,
    credentialId.length & 0xff,
    ...credentialId,
    ...cbor(cose),
  ]);
}

/** A "none" attestation object around `authData`. */
export function noneAttestationObject(authData: Uint8Array): Uint8Array {
  return new Uint8Array(cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]])));
}

/** Assertion authenticator data: rpIdHash, flags UP|UV, counter. */
export function assertionAuthData(rpId: string, counter: number): Uint8Array {
  return new Uint8Array([...sha256(rpId), 0x05, ...u32(counter)]);
}

/** The ES256 assertion signature (DER) over authData ‖ SHA-256(clientDataJSON). */
export function assertionSignature(authData: Uint8Array, clientDataJson: Uint8Array, privateKey: KeyObject): Buffer {
  return sign('sha256', Buffer.concat([authData, sha256(clientDataJson)]), { key: privateKey, dsaEncoding: 'der' });
}
