/**
 * The sandbox enclave's private key, when it must stay the same across restarts (so the app's
 * trusted key does not change every time the sandbox starts):
 * - `{ seed }`: derived from the text (the same seed, the same key on every machine: for CI and
 *   shared fixtures; the seed is not a secret, anyone who has it can sign as this enclave);
 * - `{ file }`: a PKCS#8 PEM P-256 private key, made (mode 0600) the first time the file is missing.
 * Without either the sandbox makes a new key at every start. A sandbox key is trusted only by apps
 * pointed at a sandbox: never put its public key in a production configuration.
 */
import { createECDH, createHash, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { invalidArgument } from '../errors.js';
import { bytesToBase64url } from './crypto/encoding.js';

/** A fixed enclave key: derived from a seed, or kept in a PEM file (made when missing). */
export type EnclaveKeyOption = { seed: string } | { file: string };

const P256 = 'prime256v1';

/** The P-256 key whose scalar is SHA-256 of the seed (re-hashed with a counter in the ~2^-32 case it is out of range). */
function fromSeed(seed: string): KeyObject {
  for (let counter = 0; ; counter++) {
    const d = createHash('sha256').update(`embedded-wallet-signer sandbox enclave\0${counter}\0${seed}`).digest();
    const ecdh = createECDH(P256);
    try {
      ecdh.setPrivateKey(d);
    } catch {
      continue;
    }
    const point = ecdh.getPublicKey();
    const b64 = bytesToBase64url;
    return createPrivateKey({ key: { kty: 'EC', crv: 'P-256', d: b64(d), x: b64(point.subarray(1, 33)), y: b64(point.subarray(33, 65)) }, format: 'jwk' });
  }
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === P256;
}

function fromFile(file: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw invalidArgument('enclaveKey.file', `a readable file (${(error as Error).message})`);
    const made = generateKeyPairSync('ec', { namedCurve: P256 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    mkdirSync(dirname(file), { recursive: true });
    try {
      // `wx`: a sandbox starting at the same moment that made it first wins; this one reads it.
      writeFileSync(file, made, { mode: 0o600, flag: 'wx' });
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw invalidArgument('enclaveKey.file', `a writable path (${(raced as Error).message})`);
    }
    pem = readFileSync(file, 'utf8');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw invalidArgument('enclaveKey.file', 'a PEM private key');
  }
  if (!isP256(key)) throw invalidArgument('enclaveKey.file', 'a P-256 (prime256v1) EC private key');
  return key;
}

/** Checks the option's shape (INVALID_ARGUMENT otherwise). */
export function checkEnclaveKeyOption(value: unknown): void {
  if (value === undefined) return;
  const o = value as Record<string, unknown>;
  const seed = typeof o === 'object' && o !== null && typeof o.seed === 'string' && o.seed !== '' && !('file' in o);
  const file = typeof o === 'object' && o !== null && typeof o.file === 'string' && o.file !== '' && !('seed' in o);
  if (!seed && !file) throw invalidArgument('options.enclaveKey', '{ seed: non-empty string } or { file: path of a PEM key }');
}

/** The fixed key `option` names, or undefined (a new key at every start). */
export function loadEnclaveKey(option: EnclaveKeyOption | undefined): KeyObject | undefined {
  if (option === undefined) return undefined;
  return 'seed' in option ? fromSeed(option.seed) : fromFile(option.file);
}

/** Where the key of `option` comes from, as the sandbox prints it at start. */
export function enclaveKeySource(option: EnclaveKeyOption | undefined): string {
  if (option === undefined) return 'new at this start';
  return 'seed' in option ? 'derived from a seed' : `kept in ${option.file}`;
}
