/**
 * The sandbox's enclave: one P-256 signing key pair, made at start-up or given (a fixed key:
 * enclave-key.ts).
 *
 * It signs OTP target bundles and export bundles (`dataSignature` = DER ECDSA P-256/SHA-256 over
 * the hex-decoded `data` bytes, announced as `enclaveQuorumPublic`), and verification tokens (ES256
 * JWTs). HPKE target keys are not the enclave key: each OTP issuance gets a fresh one (otp.ts).
 * `GET /sandbox/enclave` publishes the public key so clients can trust it.
 */
import { createPublicKey, generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import { base64urlToBytes, bytesToHex, utf8 } from './crypto/encoding.js';
import { signJwt } from './crypto/jwt.js';
import { compressPoint } from './crypto/p256.js';

export const BUNDLE_VERSION = 'v1.0.0';

export interface Enclave {
  /** Uncompressed hex (130 chars), the `enclaveQuorumPublic` of every bundle. */
  readonly publicKey: string;
  /** Compressed hex (66 chars). */
  readonly publicKeyCompressed: string;
  /** The public key as a JWK (to verify ES256 verification tokens). */
  readonly publicJwk: JsonWebKey;
  /** DER ECDSA P-256/SHA-256 signature. */
  signDer(data: Uint8Array): Uint8Array;
  /** A signed bundle string `{"version","data","dataSignature","enclaveQuorumPublic"}` over `data`. */
  signedBundle(data: Uint8Array): string;
  /** An ES256 JWT over `claims`. */
  signToken(claims: Record<string, unknown>): string;
}

/** The enclave of `fixedKey` (a P-256 private key), else of a new key. */
export function createEnclave(fixedKey?: KeyObject): Enclave {
  const { privateKey, publicKey } = fixedKey ? { privateKey: fixedKey, publicKey: createPublicKey(fixedKey) } : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const x = base64urlToBytes(jwk.x ?? '');
  const y = base64urlToBytes(jwk.y ?? '');
  if (x === undefined || y === undefined || x.length !== 32 || y.length !== 32) throw new Error('enclave key export failed');
  const uncompressed = new Uint8Array([4, ...x, ...y]);
  const publicHex = bytesToHex(uncompressed);
  const compressedHex = bytesToHex(compressPoint(uncompressed));
  const sign = (key: KeyObject, data: Uint8Array, encoding: 'der' | 'ieee-p1363'): Uint8Array =>
    new Uint8Array(nodeSign('sha256', data, { key, dsaEncoding: encoding }));
  return {
    publicKey: publicHex,
    publicKeyCompressed: compressedHex,
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string },
    signDer: (data) => sign(privateKey, data, 'der'),
    signedBundle(data) {
      return JSON.stringify({
        version: BUNDLE_VERSION,
        data: bytesToHex(data),
        dataSignature: bytesToHex(sign(privateKey, data, 'der')),
        enclaveQuorumPublic: publicHex,
      });
    },
    signToken(claims) {
      return signJwt({ alg: 'ES256', typ: 'JWT', kid: compressedHex }, claims, (input) => sign(privateKey, input, 'ieee-p1363'));
    },
  };
}

/** UTF-8 bytes of a JSON value, the `data` of a bundle. */
export function jsonBytes(value: unknown): Uint8Array {
  return utf8(JSON.stringify(value));
}
