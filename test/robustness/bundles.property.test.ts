// Property tests of the bundle decoders: legacy sealed session keys (base58check), OTP target
// bundles (parse + signature check) and wallet export envelopes. 10,000 inputs each, made by
// mutating the known-answer vectors (and bundles signed by the sandbox's enclave) at every layer —
// the outer text, one JSON field, the hex inside, the JSON inside the hex — plus arbitrary text.
// The library only throws WalletErrors with the documented codes, and it never accepts something
// it should not: a verified bundle carries the signed bytes, an opened one the sealed secret.
import fc from 'fast-check';
import bs58check from 'bs58check';
import { p256 } from '@noble/curves/nist.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bytesToHex,
  hexToBytes,
  parseOtpTargetBundle,
  type TrustedKeys,
} from '../../src/crypto/index.js';
import { hpkeSeal, openExportBundle, verifySignedBundle } from '../../src/crypto/enclave.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { openSealedSessionKey } from '../../src/legacy.js';
import { createEnclave } from '../../src/sandbox/enclave.js';
import { arbitraryText, mutateBytes, mutateJsonObject, mutateString, toHex } from './helpers/mutate.js';
import { PROPERTY_TIMEOUT_MS, RUNS, Tally, asyncOutcome, report, vectors } from './helpers/outcome.js';

const ENVELOPE_HEX_FIELDS = ['data', 'dataSignature', 'enclaveQuorumPublic'] as const;

/** The envelope with its signer replaced by another valid P-256 key (either form): untrusted. */
function otherSigner(envelope: Record<string, string>): fc.Arbitrary<string> {
  return fc
    .tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((d) => p256.utils.isValidSecretKey(d)), fc.boolean())
    .map(([d, compressed]) => JSON.stringify({ ...envelope, enclaveQuorumPublic: toHex(p256.getPublicKey(d, compressed)) }));
}

describe('legacy sealed session key (openSealedSessionKey)', () => {
  let recipientKey: CryptoKeyPair;
  const recipientPublic = hexToBytes(vectors.credentialBundle.recipientPublicKeyUncompressed);
  beforeAll(async () => {
    recipientKey = await importHpkeRecipientKey(hexToBytes(vectors.credentialBundle.recipientPrivateKey));
  });

  /** A well-formed sealed key around any plaintext (checks what happens after a successful open). */
  const sealedPlaintext = fc
    .oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ maxLength: 48 }),
      fc.constantFrom(new Uint8Array(32), Uint8Array.from(Buffer.from('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', 'hex'))),
    )
    .map((plaintext) => ({ plaintext }));

  it(`${RUNS} mutated and arbitrary bundles → a non-extractable key only for a sealed valid scalar, else MALFORMED_BUNDLE / DECRYPTION_FAILED`, async () => {
    const tally = new Tally();
    const decoded = bs58check.decode(vectors.credentialBundle.bundle);
    const input = fc.oneof(
      { weight: 20, arbitrary: mutateString(vectors.credentialBundle.bundle).map((bundle) => ({ bundle })) },
      // Re-encoded with a valid checksum: reaches the length, point and HPKE checks.
      { weight: 5, arbitrary: mutateBytes(decoded).map((b) => ({ bundle: bs58check.encode(b) })) },
      { weight: 4, arbitrary: arbitraryText.map((bundle) => ({ bundle })) },
      { weight: 2, arbitrary: fc.uint8Array({ maxLength: 120 }).map((b) => ({ bundle: bs58check.encode(b) })) },
      // Sealed for real (HPKE seal, then open): what the scalar checks after decryption see.
      { weight: 1, arbitrary: sealedPlaintext },
    );
    await fc.assert(
      fc.asyncProperty(input, async (generated) => {
        let bundle: string;
        let scalar: Uint8Array | undefined;
        if ('plaintext' in generated) {
          const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: recipientPublic, plaintext: generated.plaintext });
          bundle = bs58check.encode(new Uint8Array([...p256.Point.fromBytes(enc).toBytes(true), ...ciphertext]));
          scalar = generated.plaintext;
        } else {
          bundle = generated.bundle;
          // Surrounding whitespace is trimmed by design: the vector itself is then still valid.
          if (bundle.trim() === vectors.credentialBundle.bundle) scalar = hexToBytes(vectors.credentialBundle.plaintextPrivateKey);
        }
        const result = await asyncOutcome(() => openSealedSessionKey({ bundle, recipientKey }), ['MALFORMED_BUNDLE', 'DECRYPTION_FAILED']);
        tally.add(result);
        const validScalar = scalar !== undefined && scalar.length === 32 && p256.utils.isValidSecretKey(scalar);
        expect(result.ok).toBe(validScalar);
        if (result.ok && scalar !== undefined) {
          expect(result.value.privateKey.extractable).toBe(false);
          expect(result.value.publicKeyHex).toBe(bytesToHex(p256.getPublicKey(scalar, true)));
        }
      }),
      { numRuns: RUNS },
    );
    report('openSealedSessionKey', tally);
    for (const code of ['ok', 'MALFORMED_BUNDLE', 'DECRYPTION_FAILED']) expect(tally.has(code), tally.toString()).toBe(true);
  }, PROPERTY_TIMEOUT_MS);
});

describe('OTP target bundles (parseOtpTargetBundle + verifySignedBundle)', () => {
  const enclave = createEnclave();
  const trusted: TrustedKeys = [enclave.publicKey];
  /** Every data hex the enclave signed: a bundle may only verify with one of these. */
  const signed = new Set<string>();
  const sign = (data: Uint8Array): string => {
    signed.add(toHex(data));
    return enclave.signedBundle(data);
  };
  const target = p256.getPublicKey(p256.utils.randomSecretKey(), false);
  const inner = { targetPublic: toHex(target), organizationId: 'f9a31c64-d604-42e4-9bef-a773096afad7' };
  const seedText = sign(Buffer.from(JSON.stringify(inner)));
  const seed = JSON.parse(seedText) as Record<string, string>;

  it(`${RUNS} mutated bundles → verified only when the enclave signed exactly that data, else MALFORMED_BUNDLE / BUNDLE_SIGNATURE_INVALID / BUNDLE_SIGNER_UNTRUSTED`, async () => {
    const tally = new Tally();
    const mutatedInner = mutateJsonObject(inner, ['targetPublic']).map((text) => Buffer.from(text));
    const input = fc.oneof(
      { weight: 4, arbitrary: mutateString(seedText) },
      { weight: 4, arbitrary: mutateJsonObject(seed, ENVELOPE_HEX_FIELDS) },
      // The data's JSON mutated and left with the old signature…
      { weight: 2, arbitrary: mutatedInner.map((data) => JSON.stringify({ ...seed, data: toHex(data) })) },
      // …or signed again by the enclave: the target key check inside is reached.
      { weight: 2, arbitrary: mutatedInner.map((data) => sign(data)) },
      // Arbitrary bytes as data, signed: not UTF-8, not JSON.
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((data) => sign(data)) },
      { weight: 1, arbitrary: otherSigner(seed) },
      { weight: 1, arbitrary: fc.constantFrom(`'${seedText}'`, ` ${seedText}\n`, seedText.toUpperCase()) },
      { weight: 1, arbitrary: arbitraryText },
    );
    await fc.assert(
      fc.asyncProperty(input, async (text) => {
        const result = await asyncOutcome(async () => {
          const bundle = parseOtpTargetBundle(text);
          await verifySignedBundle(bundle, trusted);
          return bundle;
        }, ['MALFORMED_BUNDLE', 'BUNDLE_SIGNATURE_INVALID', 'BUNDLE_SIGNER_UNTRUSTED']);
        tally.add(result);
        if (result.ok) {
          expect(signed.has(bytesToHex(result.value.data))).toBe(true);
          const data = JSON.parse(Buffer.from(result.value.data).toString('utf8')) as { targetPublic: string };
          expect(bytesToHex(result.value.targetPublic)).toBe(p256.Point.fromHex(data.targetPublic).toHex(false));
        }
      }),
      { numRuns: RUNS },
    );
    report('parseOtpTargetBundle+verifySignedBundle', tally);
    for (const code of ['ok', 'MALFORMED_BUNDLE', 'BUNDLE_SIGNATURE_INVALID', 'BUNDLE_SIGNER_UNTRUSTED']) expect(tally.has(code), tally.toString()).toBe(true);
  }, PROPERTY_TIMEOUT_MS);
});

describe('wallet export envelopes (openExportBundle)', () => {
  let recipientKey: CryptoKeyPair;
  const v = vectors.exportBundle;
  const seed = JSON.parse(v.bundle) as Record<string, string>;
  const inner = JSON.parse(Buffer.from(seed.data!, 'hex').toString('utf8')) as Record<string, string>;
  const trustedKey = seed.enclaveQuorumPublic!;
  beforeAll(async () => {
    recipientKey = await importHpkeRecipientKey(hexToBytes(v.recipientPrivateKey));
  });

  it(`${RUNS} mutated envelopes (verified or not) → the mnemonic only when intact, else a bundle / decryption code`, async () => {
    const tally = new Tally();
    const innerText = fc.oneof(
      mutateJsonObject(inner, ['encappedPublic', 'ciphertext']),
      mutateString(JSON.stringify(inner)),
    );
    const input = fc.oneof(
      { weight: 4, arbitrary: mutateString(v.bundle) },
      { weight: 2, arbitrary: mutateJsonObject(seed, ENVELOPE_HEX_FIELDS) },
      { weight: 3, arbitrary: innerText.map((text) => JSON.stringify({ ...seed, data: Buffer.from(text).toString('hex') })) },
      { weight: 1, arbitrary: otherSigner(seed) },
      { weight: 1, arbitrary: arbitraryText },
    );
    await fc.assert(
      fc.asyncProperty(input, fc.boolean(), async (bundle, verify) => {
        const trustedKeys: TrustedKeys = verify ? [trustedKey] : 'skip-verification';
        const result = await asyncOutcome(() => openExportBundle({ bundle, recipientKey, trustedKeys }), [
          'MALFORMED_BUNDLE',
          'BUNDLE_SIGNATURE_INVALID',
          'BUNDLE_SIGNER_UNTRUSTED',
          'DECRYPTION_FAILED',
        ]);
        tally.add(result);
        if (result.ok) {
          // HPKE authenticates the mnemonic; the signature (when checked) also the organization id.
          expect(result.value.mnemonic).toBe(v.mnemonic);
          if (verify) expect(result.value.organizationId).toBe(v.organizationId);
        }
      }),
      { numRuns: RUNS },
    );
    report('openExportBundle', tally);
    for (const code of ['ok', 'MALFORMED_BUNDLE', 'BUNDLE_SIGNATURE_INVALID', 'BUNDLE_SIGNER_UNTRUSTED', 'DECRYPTION_FAILED']) {
      expect(tally.has(code), tally.toString()).toBe(true);
    }
  }, PROPERTY_TIMEOUT_MS);
});
