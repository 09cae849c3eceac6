/**
 * Client-side keys and stamps for tests, written with node:crypto only (independent of the
 * sandbox's own code): P-256 session keys, the stamp of wire-reference §3.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

export interface TestKey {
  privateKey: KeyObject;
  /** 66 hex chars. */
  compressed: string;
  /** 130 hex chars. */
  uncompressed: string;
}

export function keyFromPrivate(privateKey: KeyObject): TestKey {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const x = Buffer.from(jwk.x as string, 'base64url');
  const y = Buffer.from(jwk.y as string, 'base64url');
  const prefix = (y[31] as number) % 2 === 0 ? '02' : '03';
  return { privateKey, compressed: prefix + x.toString('hex'), uncompressed: `04${x.toString('hex')}${y.toString('hex')}` };
}

export function newKey(): TestKey {
  return keyFromPrivate(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
}

export function derSign(key: TestKey, payload: string): string {
  return sign('sha256', Buffer.from(payload, 'utf8'), { key: key.privateKey, dsaEncoding: 'der' }).toString('hex');
}

export function stampWith(publicKey: string, signatureHex: string, scheme = 'SIGNATURE_SCHEME_TK_API_P256'): string {
  return Buffer.from(JSON.stringify({ publicKey, scheme, signature: signatureHex }), 'utf8').toString('base64url');
}

/** The `Service-Wallet-Signature` value for `payload` signed by `key`. */
export function stamp(payload: string, key: TestKey): string {
  return stampWith(key.compressed, derSign(key, payload));
}

/** A P-256 private key object from a raw 32-byte scalar (to use sealed legacy keys). */
export function keyFromScalar(scalar: Uint8Array, pub: Uint8Array): TestKey {
  const privateKey = createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: Buffer.from(scalar).toString('base64url'),
      x: Buffer.from(pub.subarray(1, 33)).toString('base64url'),
      y: Buffer.from(pub.subarray(33, 65)).toString('base64url'),
    },
    format: 'jwk',
  });
  return keyFromPrivate(privateKey);
}
