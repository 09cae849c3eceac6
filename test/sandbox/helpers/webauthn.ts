/**
 * A software WebAuthn authenticator for HTTP-level passkey tests: "none" attestation, ES256 key,
 * a signature counter. It returns the fields of the service's JSON bodies (base64url strings) and
 * takes overrides to forge bad ceremonies. The bytes come from test/helpers/webauthn-data.ts, shared
 * with the navigator.credentials authenticator of the flow tests (test/flows/helpers/authenticator.ts).
 */
import { randomBytes } from 'node:crypto';
import { assertionAuthData, assertionSignature, clientData, noneAttestationObject, registrationAuthData } from '../../helpers/webauthn-data.js';
import { newKey, type TestKey } from './keys.js';

/** `crossOrigin` / `topOrigin` of the client data (a ceremony in a frame of another origin). */
export type Frame = { crossOrigin?: unknown; topOrigin?: unknown };

const b64u = (b: Uint8Array | Buffer): string => Buffer.from(b).toString('base64url');

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
  register(challenge: string, overrides: { origin?: string; rpId?: string; type?: string; frame?: Frame } = {}) {
    const client = clientData(overrides.type ?? 'webauthn.create', challenge, overrides.origin ?? this.origin, overrides.frame);
    const pub = Buffer.from(this.key.uncompressed, 'hex');
    const authData = registrationAuthData(overrides.rpId ?? this.rpId, this.counter, this.credentialId, new Uint8Array(pub.subarray(1, 33)), new Uint8Array(pub.subarray(33, 65)));
    const attestationObject = noneAttestationObject(authData);
    return { credentialId: this.id, clientDataJson: b64u(client), attestationObject: b64u(attestationObject), transports: ['internal'] };
  }

  /** `assertion` for POST /verify (PASSKEY) over the hex `challenge` of a PasskeyAuthChallenge. */
  assert(challengeHex: string, overrides: { origin?: string; rpId?: string; counter?: number; frame?: Frame } = {}) {
    this.counter = overrides.counter ?? this.counter + 1;
    const client = clientData('webauthn.get', b64u(Buffer.from(challengeHex, 'utf8')), overrides.origin ?? this.origin, overrides.frame);
    const authData = assertionAuthData(overrides.rpId ?? this.rpId, this.counter);
    const signature = assertionSignature(authData, client, this.key.privateKey);
    return { credentialId: this.id, clientDataJson: b64u(client), authenticatorData: b64u(authData), signature: b64u(signature) };
  }
}
