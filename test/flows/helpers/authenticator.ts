/**
 * A software WebAuthn authenticator installed as `navigator.credentials` in Node, so the library's
 * passkey flows run through @simplewebauthn/browser for real: "none" attestation, ES256 keys made
 * and used with node:crypto, a signature counter. The bytes come from test/helpers/webauthn-data.ts,
 * shared with the HTTP-level authenticator of the sandbox tests (test/sandbox/helpers/webauthn.ts);
 * this one adds the browser API's face (ArrayBuffers, PublicKeyCredential-shaped answers).
 *
 * Like a real authenticator, create() refuses with InvalidStateError when it holds a credential
 * listed in `excludeCredentials`. Test hooks: `fail` throws a DOMException from the next ceremony;
 * `tamperChallenge` makes the next assertion sign another challenge than the one asked for.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { vi } from 'vitest';
import { assertionAuthData, assertionSignature, clientData, noneAttestationObject, registrationAuthData } from '../../helpers/webauthn-data.js';

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
  /** The options of the last create(). */
  lastCreate: PublicKeyCredentialCreationOptions | undefined;

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
    this.lastCreate = pk;
    const excluded = new Set((pk.excludeCredentials ?? []).map((c) => Buffer.from(bytes(c.id as BufferSource)).toString('base64url')));
    if (this.credentials.some((c) => excluded.has(Buffer.from(c.id).toString('base64url')))) {
      throw new DOMException('The authenticator holds an excluded credential', 'InvalidStateError');
    }
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
    const client = clientData('webauthn.create', Buffer.from(bytes(pk.challenge as BufferSource)).toString('base64url'), this.origin);
    const attestationObject = noneAttestationObject(registrationAuthData(rpId, 0, cred.id, cred.x, cred.y));
    return {
      id: Buffer.from(cred.id).toString('base64url'),
      rawId: ab(cred.id),
      type: 'public-key',
      response: { clientDataJSON: ab(client), attestationObject: ab(attestationObject), getTransports: () => ['internal'] },
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
    const client = clientData('webauthn.get', Buffer.from(challenge).toString('base64url'), this.origin);
    const authData = assertionAuthData(pk.rpId ?? this.defaultRpId, cred.counter);
    const signature = assertionSignature(authData, client, cred.privateKey);
    return {
      id: Buffer.from(cred.id).toString('base64url'),
      rawId: ab(cred.id),
      type: 'public-key',
      response: { clientDataJSON: ab(client), authenticatorData: ab(authData), signature: ab(new Uint8Array(signature)), userHandle: ab(cred.userHandle) },
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
