/**
 * A software WebAuthn authenticator installed as `navigator.credentials` in Node, so the library's
 * passkey flows run through @simplewebauthn/browser for real: "none" attestation, ES256 keys made
 * and used with node:crypto, a signature counter, minimal CBOR of its own.
 *
 * Test hooks: `fail` throws a DOMException from the next ceremony; `tamperChallenge` makes the next
 * assertion sign another challenge than the one asked for.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { vi } from 'vitest';

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 256) return [(major << 5) | 24, n];
  return [(major << 5) | 25, n >> 8, n & 0xff];
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

const sha256 = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();
const u32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const ab = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const bytes = (b: BufferSource): Uint8Array => (b instanceof ArrayBuffer ? new Uint8Array(b) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength));

interface Credential {
  id: Uint8Array;
  privateKey: KeyObject;
  x: Uint8Array;
  y: Uint8Array;
  counter: number;
  userHandle: Uint8Array;
}

export class SoftwareAuthenticator {
  readonly credentials: Credential[] = [];
  /** Throws this DOMException name from the next ceremony. */
  fail: string | undefined;
  /** Signs this challenge instead of the one asked for, once. */
  tamperChallenge: Uint8Array | undefined;
  /** Ceremonies started (create + get). */
  calls = 0;
  /** The options of the last get(). */
  lastGet: PublicKeyCredentialRequestOptions | undefined;

  constructor(
    readonly origin: string,
    readonly defaultRpId: string,
  ) {}

  private failure(): void {
    const name = this.fail;
    if (name === undefined) return;
    this.fail = undefined;
    throw new DOMException(`software authenticator: ${name}`, name);
  }

  async create(options: CredentialCreationOptions): Promise<unknown> {
    this.calls++;
    this.failure();
    const pk = options.publicKey as PublicKeyCredentialCreationOptions;
    const rpId = pk.rp.id ?? this.defaultRpId;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cred: Credential = {
      id: new Uint8Array(randomBytes(32)),
      privateKey,
      x: new Uint8Array(Buffer.from(jwk.x as string, 'base64url')),
      y: new Uint8Array(Buffer.from(jwk.y as string, 'base64url')),
      counter: 0,
      userHandle: bytes(pk.user.id as BufferSource),
    };
    this.credentials.push(cred);
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.create', challenge: Buffer.from(bytes(pk.challenge as BufferSource)).toString('base64url'), origin: this.origin, crossOrigin: false }),
    );
    const cose = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, cred.x],
      [-3, cred.y],
    ]);
    const authData = new Uint8Array([...sha256(rpId), 0x45, ...u32(0), ...new Uint8Array(16), 0, cred.id.length, ...cred.id, ...cbor(cose)]);
    const attestationObject = new Uint8Array(cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]])));
    return {
      id: Buffer.from(cred.id).toString('base64url'),
      rawId: ab(cred.id),
      type: 'public-key',
      response: { clientDataJSON: ab(clientData), attestationObject: ab(attestationObject), getTransports: () => ['internal'] },
      getClientExtensionResults: () => ({}),
      authenticatorAttachment: 'platform',
    };
  }

  async get(options: CredentialRequestOptions): Promise<unknown> {
    this.calls++;
    this.failure();
    const pk = options.publicKey as PublicKeyCredentialRequestOptions;
    this.lastGet = pk;
    const allowed = (pk.allowCredentials ?? []).map((c) => Buffer.from(bytes(c.id as BufferSource)).toString('base64url'));
    const cred = this.credentials.find((c) => allowed.length === 0 || allowed.includes(Buffer.from(c.id).toString('base64url')));
    if (!cred) throw new DOMException('no matching credential', 'NotAllowedError');
    const challenge = this.tamperChallenge ?? bytes(pk.challenge as BufferSource);
    this.tamperChallenge = undefined;
    cred.counter++;
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: Buffer.from(challenge).toString('base64url'), origin: this.origin, crossOrigin: false }),
    );
    const authData = new Uint8Array([...sha256(pk.rpId ?? this.defaultRpId), 0x05, ...u32(cred.counter)]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), { key: cred.privateKey, dsaEncoding: 'der' });
    return {
      id: Buffer.from(cred.id).toString('base64url'),
      rawId: ab(cred.id),
      type: 'public-key',
      response: { clientDataJSON: ab(clientData), authenticatorData: ab(authData), signature: ab(new Uint8Array(signature)), userHandle: ab(cred.userHandle) },
      getClientExtensionResults: () => ({}),
      authenticatorAttachment: 'platform',
    };
  }
}

/** Installs the authenticator as `navigator.credentials` (and a `PublicKeyCredential`) for this test file. */
export function installAuthenticator(origin: string, rpId: string): SoftwareAuthenticator {
  const authenticator = new SoftwareAuthenticator(origin, rpId);
  vi.stubGlobal('PublicKeyCredential', function PublicKeyCredential() {});
  vi.stubGlobal('navigator', { credentials: { create: (o: CredentialCreationOptions) => authenticator.create(o), get: (o: CredentialRequestOptions) => authenticator.get(o) } });
  vi.stubGlobal('location', { hostname: rpId });
  return authenticator;
}
