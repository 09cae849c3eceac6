/**
 * A software WebAuthn authenticator for HTTP-level passkey tests: "none" attestation, ES256 key,
 * a signature counter. Encodes its own minimal CBOR; signs with node:crypto.
 */
import { createHash, randomBytes, sign } from 'node:crypto';
import { newKey, type TestKey } from './keys.js';

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 256) return [(major << 5) | 24, n];
  if (n < 65536) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

function cbor(v: Cbor): number[] {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return [...head(3, b.length), ...b];
  }
  if (v instanceof Uint8Array) return [...head(2, v.length), ...v];
  if (Array.isArray(v)) return [...head(4, v.length), ...v.flatMap(cbor)];
  return [...head(5, v.size), ...[...v.entries()].flatMap(([k, x]) => [...cbor(k), ...cbor(x)])];
}

const b64u = (b: Uint8Array | Buffer): string => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();
const u32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];

export class SoftAuthenticator {
  readonly key: TestKey = newKey();
  readonly credentialId: Uint8Array = new Uint8Array(randomBytes(32));
  counter = 0;

  constructor(
    readonly origin: string,
    readonly rpId: string,
  ) {}

  get id(): string {
    return b64u(this.credentialId);
  }

  /** `attestation` for POST /auth/credentials (PASSKEY), over a base64url `challenge`. */
  register(challenge: string, overrides: { origin?: string; rpId?: string; type?: string } = {}) {
    const clientData = JSON.stringify({ type: overrides.type ?? 'webauthn.create', challenge, origin: overrides.origin ?? this.origin, crossOrigin: false });
    const pub = Buffer.from(this.key.uncompressed, 'hex');
    const cose = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(pub.subarray(1, 33))],
      [-3, new Uint8Array(pub.subarray(33, 65))],
    ]);
    const authData = new Uint8Array([
      ...sha256(overrides.rpId ?? this.rpId),
      0x45,
      ...u32(this.counter),
      ...new Uint8Array(16),
      this.credentialId.length >> 8,
      this.credentialId.length & 0xff,
      ...this.credentialId,
      ...cbor(cose),
    ]);
    const attestationObject = new Uint8Array(cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]])));
    return { credentialId: this.id, clientDataJson: b64u(Buffer.from(clientData)), attestationObject: b64u(attestationObject), transports: ['internal'] };
  }

  /** `assertion` for POST /verify (PASSKEY) over the hex `challenge` of a PasskeyAuthChallenge. */
  assert(challengeHex: string, overrides: { origin?: string; rpId?: string; counter?: number } = {}) {
    this.counter = overrides.counter ?? this.counter + 1;
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: b64u(Buffer.from(challengeHex, 'utf8')), origin: overrides.origin ?? this.origin, crossOrigin: false }),
    );
    const authData = new Uint8Array([...sha256(overrides.rpId ?? this.rpId), 0x05, ...u32(this.counter)]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), { key: this.key.privateKey, dsaEncoding: 'der' });
    return { credentialId: this.id, clientDataJson: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature) };
  }
}
