import { describe, expect, it, vi } from 'vitest';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';
import {
  bytesToHex,
  compressPublicKey,
  concatBytes,
  generateRecipientKey,
  generateSessionKey,
  oauthNonce,
  parseOtpTargetBundle,
  parseSignedBundle,
  signerFromKey,
  utf8Decode,
  utf8Encode,
  type SessionKey,
  type TrustedKeys,
} from '../../src/crypto/index.js';
import {
  buildEncryptedOtpBundle,
  hpkeSeal,
  openExportBundle,
  verifySignedBundle,
} from '../../src/crypto/enclave.js';
import { importHpkeRecipientKey } from '../helpers/hpke-keys.js';
import { createHash } from 'node:crypto';
import { asyncCodeOf, codeOf, hex, vectors } from './helpers.js';

const otp = vectors.otpSeal;
const exp = vectors.exportBundle;
const exportSigner = (JSON.parse(exp.bundle) as { enclaveQuorumPublic: string }).enclaveQuorumPublic;

/** An enclave-style signed envelope over `dataJson`, signed by `signer` (a WebCrypto session key). */
async function signedEnvelope(dataJson: string, signer: SessionKey, claimedSigner = signer.publicKeyUncompressedHex): Promise<string> {
  const data = utf8Encode(dataJson);
  const signature = await signerFromKey(signer).sign(data);
  return JSON.stringify({ version: 'v1.0.0', data: bytesToHex(data), dataSignature: bytesToHex(signature), enclaveQuorumPublic: claimedSigner });
}

async function otpTargetBundle(enclave: SessionKey) {
  return signedEnvelope(JSON.stringify({ organizationId: 'org', targetPublic: otp.recipientPublicKeyUncompressed }), enclave);
}

function withField(bundle: string, field: string, value: unknown): string {
  return JSON.stringify({ ...(JSON.parse(bundle) as object), [field]: value });
}

describe('OTP target bundle and encrypted OTP bundle', () => {
  it('reproduces the vector encryptedOtpBundle byte for byte (ekm), verified and skip-verification', async () => {
    const enclave = await generateSessionKey();
    const target = await otpTargetBundle(enclave);
    const ekm = await importHpkeRecipientKey(hex(otp.ephemeralPrivateKey));
    const sessionPublicKeyHex = vectors.stamp.publicKeyCompressed;
    for (const trustedKeys of [[enclave.publicKeyHex], [enclave.publicKeyUncompressedHex.toUpperCase()], 'skip-verification'] as TrustedKeys[]) {
      const built = await buildEncryptedOtpBundle({ targetBundle: target, otpCode: '123456', sessionPublicKeyHex, trustedKeys, ekm });
      expect(built).toBe(otp.encryptedOtpBundle);
    }
  });
  it('the encrypted OTP bundle opens with @hpke/core directly to {otp_code, public_key} in that order', async () => {
    const enclave = await generateSessionKey();
    const session = await generateSessionKey();
    const built = await buildEncryptedOtpBundle({
      targetBundle: `'${await otpTargetBundle(enclave)}'`, // single-quote wrapped, as seen in the wild
      otpCode: 'A1b2C3d4E5f6',
      sessionPublicKeyHex: session.publicKeyHex,
      trustedKeys: [enclave.publicKeyHex],
    });
    const { encappedPublic, ciphertext } = JSON.parse(built) as { encappedPublic: string; ciphertext: string };
    expect(Object.keys(JSON.parse(built))).toEqual(['encappedPublic', 'ciphertext']);
    const recipientKey = await importHpkeRecipientKey(hex(otp.recipientPrivateKey));
    const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
    const pt = await suite.open(
      { recipientKey, enc: hex(encappedPublic), info: utf8Encode('turnkey_hpke') },
      hex(ciphertext),
      concatBytes(hex(encappedPublic), hex(otp.recipientPublicKeyUncompressed)),
    );
    expect(utf8Decode(new Uint8Array(pt))).toBe(`{"otp_code":"A1b2C3d4E5f6","public_key":"${session.publicKeyHex}"}`);
  });
  it('zeroes the OTP plaintext bytes once sealed, and when sealing fails', async () => {
    const enclave = await generateSessionKey();
    const session = await generateSessionKey();
    const targetBundle = await otpTargetBundle(enclave);
    const subtle = globalThis.crypto.subtle;
    const encrypt = subtle.encrypt.bind(subtle);
    const seen: Array<{ bytes: Uint8Array; atCall: string }> = [];
    const spy = vi.spyOn(subtle, 'encrypt').mockImplementation(async (algorithm, key, data) => {
      const bytes = data as Uint8Array;
      seen.push({ bytes, atCall: utf8Decode(bytes) });
      return encrypt(algorithm, key, data);
    });
    try {
      await buildEncryptedOtpBundle({ targetBundle, otpCode: '918273', sessionPublicKeyHex: session.publicKeyHex, trustedKeys: [enclave.publicKeyHex] });
      expect(seen).toHaveLength(1);
      // AES-GCM was given the plaintext itself (no copy left behind) and it held the code then ...
      expect(seen[0]!.atCall).toBe(`{"otp_code":"918273","public_key":"${session.publicKeyHex}"}`);
      // ... and every byte of it is zero now.
      expect(seen[0]!.bytes.length).toBe(seen[0]!.atCall.length);
      expect(seen[0]!.bytes.every((b) => b === 0)).toBe(true);

      spy.mockImplementation(async (_algorithm, _key, data) => {
        seen.push({ bytes: data as Uint8Array, atCall: utf8Decode(data as Uint8Array) });
        throw new DOMException('refused', 'OperationError');
      });
      await expect(buildEncryptedOtpBundle({ targetBundle, otpCode: '564738', sessionPublicKeyHex: session.publicKeyHex, trustedKeys: [enclave.publicKeyHex] })).rejects.toThrow();
      expect(seen[1]!.atCall).toContain('"otp_code":"564738"');
      expect(seen[1]!.bytes.every((b) => b === 0)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
  it('parseOtpTargetBundle returns the target point and the signed bytes', async () => {
    const enclave = await generateSessionKey();
    const parsed = parseOtpTargetBundle(`  '${await otpTargetBundle(enclave)}'\n`);
    expect(bytesToHex(parsed.targetPublic)).toBe(otp.recipientPublicKeyUncompressed);
    expect(parsed.version).toBe('v1.0.0');
    expect(parsed.enclaveQuorumPublic).toBe(enclave.publicKeyUncompressedHex);
    await verifySignedBundle(parsed, [enclave.publicKeyHex]);
  });
  it('a compressed targetPublic is accepted and decompressed', async () => {
    const enclave = await generateSessionKey();
    const compressed = bytesToHex(compressPublicKey(hex(otp.recipientPublicKeyUncompressed)));
    const bundle = await signedEnvelope(JSON.stringify({ targetPublic: compressed }), enclave);
    expect(bytesToHex(parseOtpTargetBundle(bundle).targetPublic)).toBe(otp.recipientPublicKeyUncompressed);
  });
});

describe('OTP bundle rejections', () => {
  const base = async () => {
    const enclave = await generateSessionKey();
    return { enclave, target: await otpTargetBundle(enclave), sessionPublicKeyHex: vectors.stamp.publicKeyCompressed };
  };
  it('an uncompressed or invalid session public key → INVALID_ARGUMENT', async () => {
    const { enclave, target } = await base();
    for (const sessionPublicKeyHex of [vectors.stamp.publicKeyUncompressed, '02' + 'ff'.repeat(32), '02abc', '']) {
      expect(
        await asyncCodeOf(() => buildEncryptedOtpBundle({ targetBundle: target, otpCode: '000000', sessionPublicKeyHex, trustedKeys: [enclave.publicKeyHex] })),
      ).toBe('INVALID_ARGUMENT');
    }
  });
  it('an empty or non-string OTP code → INVALID_ARGUMENT', async () => {
    const { enclave, target, sessionPublicKeyHex } = await base();
    for (const otpCode of ['', 123456 as unknown as string]) {
      expect(await asyncCodeOf(() => buildEncryptedOtpBundle({ targetBundle: target, otpCode, sessionPublicKeyHex, trustedKeys: [enclave.publicKeyHex] }))).toBe(
        'INVALID_ARGUMENT',
      );
    }
  });
  it('signed by a key that is not trusted → BUNDLE_SIGNER_UNTRUSTED', async () => {
    const { target, sessionPublicKeyHex } = await base();
    const stranger = await generateSessionKey();
    for (const trustedKeys of [[stranger.publicKeyHex], []] as TrustedKeys[]) {
      expect(await asyncCodeOf(() => buildEncryptedOtpBundle({ targetBundle: target, otpCode: '000000', sessionPublicKeyHex, trustedKeys }))).toBe(
        'BUNDLE_SIGNER_UNTRUSTED',
      );
    }
  });
  it('wrong signer: signed by one key, claiming a trusted one → BUNDLE_SIGNATURE_INVALID', async () => {
    const trusted = await generateSessionKey();
    const impostor = await generateSessionKey();
    const data = JSON.stringify({ targetPublic: otp.recipientPublicKeyUncompressed });
    const forged = await signedEnvelope(data, impostor, trusted.publicKeyUncompressedHex);
    expect(
      await asyncCodeOf(() =>
        buildEncryptedOtpBundle({ targetBundle: forged, otpCode: '000000', sessionPublicKeyHex: trusted.publicKeyHex, trustedKeys: [trusted.publicKeyHex] }),
      ),
    ).toBe('BUNDLE_SIGNATURE_INVALID');
  });
  it('tampered data, malformed or empty signature with trusted keys → BUNDLE_SIGNATURE_INVALID', async () => {
    const { enclave, target } = await base();
    const other = bytesToHex(utf8Encode(JSON.stringify({ targetPublic: vectors.points[0]!.uncompressed })));
    const bad = [
      withField(target, 'data', other),
      withField(target, 'dataSignature', '3006020101020101'),
      withField(target, 'dataSignature', (JSON.parse(target) as { dataSignature: string }).dataSignature + '00'),
      withField(target, 'dataSignature', ''),
      withField(withField(target, 'dataSignature', ''), 'enclaveQuorumPublic', ''),
    ];
    for (const b of bad) {
      expect(await asyncCodeOf(() => verifySignedBundle(parseOtpTargetBundle(b), [enclave.publicKeyHex]))).toBe('BUNDLE_SIGNATURE_INVALID');
    }
    // The same unsigned bundle is accepted only with the explicit opt-out.
    await verifySignedBundle(parseOtpTargetBundle(bad[4]!), 'skip-verification');
  });
  it('trustedKeys that are not a list of public keys → INVALID_ARGUMENT', async () => {
    const { target } = await base();
    const parsed = parseOtpTargetBundle(target);
    for (const t of ['skip', undefined, ['zz'], [vectors.invalidPoints[0]!.hex]]) {
      expect(await asyncCodeOf(() => verifySignedBundle(parsed, t as unknown as TrustedKeys))).toBe('INVALID_ARGUMENT');
    }
  });
  it.each([
    ['not JSON', '{version'],
    ['a JSON array', '[]'],
    ['a JSON string', '"x"'],
    ['empty', ''],
    ['only quotes', "''"],
    ['missing data', JSON.stringify({ version: 'v1.0.0', dataSignature: '', enclaveQuorumPublic: '' })],
    ['missing version', JSON.stringify({ data: '7b7d', dataSignature: '', enclaveQuorumPublic: '' })],
    ['numeric data', JSON.stringify({ version: 'v1.0.0', data: 7, dataSignature: '', enclaveQuorumPublic: '' })],
    ['data not hex', JSON.stringify({ version: 'v1.0.0', data: 'xyz1', dataSignature: '', enclaveQuorumPublic: '' })],
    ['data odd-length hex', JSON.stringify({ version: 'v1.0.0', data: '7b7', dataSignature: '', enclaveQuorumPublic: '' })],
    ['empty data', JSON.stringify({ version: 'v1.0.0', data: '', dataSignature: '', enclaveQuorumPublic: '' })],
    ['dataSignature not hex', JSON.stringify({ version: 'v1.0.0', data: '7b7d', dataSignature: 'zz', enclaveQuorumPublic: '' })],
    ['enclaveQuorumPublic not a point', JSON.stringify({ version: 'v1.0.0', data: '7b7d', dataSignature: '', enclaveQuorumPublic: vectors.invalidPoints[0]!.hex })],
    ['data not UTF-8', JSON.stringify({ version: 'v1.0.0', data: 'ff', dataSignature: '', enclaveQuorumPublic: '' })],
    ['data not JSON', JSON.stringify({ version: 'v1.0.0', data: bytesToHex(utf8Encode('targetPublic')), dataSignature: '', enclaveQuorumPublic: '' })],
    ['data without targetPublic', JSON.stringify({ version: 'v1.0.0', data: bytesToHex(utf8Encode('{}')), dataSignature: '', enclaveQuorumPublic: '' })],
    [
      'targetPublic off the curve',
      JSON.stringify({ version: 'v1.0.0', data: bytesToHex(utf8Encode(JSON.stringify({ targetPublic: vectors.invalidPoints[0]!.hex }))), dataSignature: '', enclaveQuorumPublic: '' }),
    ],
    [
      'targetPublic of the wrong length',
      JSON.stringify({ version: 'v1.0.0', data: bytesToHex(utf8Encode(JSON.stringify({ targetPublic: '04abcd' }))), dataSignature: '', enclaveQuorumPublic: '' }),
    ],
  ])('parseOtpTargetBundle: %s → MALFORMED_BUNDLE', (_why, s) => {
    expect(codeOf(() => parseOtpTargetBundle(s))).toBe('MALFORMED_BUNDLE');
  });
  it('a non-string bundle → MALFORMED_BUNDLE', () => {
    expect(codeOf(() => parseSignedBundle({} as unknown as string))).toBe('MALFORMED_BUNDLE');
  });
});

describe('export bundle', () => {
  const recipient = () => importHpkeRecipientKey(hex(exp.recipientPrivateKey));
  it('opens the vector to the mnemonic (trusted signer, either key form, or skip-verification)', async () => {
    const recipientKey = await recipient();
    const compressedSigner = bytesToHex(compressPublicKey(hex(exportSigner)));
    for (const trustedKeys of [[exportSigner], [compressedSigner], 'skip-verification'] as TrustedKeys[]) {
      expect(await openExportBundle({ bundle: exp.bundle, recipientKey, trustedKeys })).toEqual({
        mnemonic: exp.mnemonic,
        organizationId: exp.organizationId,
      });
    }
  });
  it('the vector signature is high-S and still verifies', async () => {
    const parsed = parseSignedBundle(exp.bundle);
    expect(p256.Signature.fromBytes(parsed.dataSignature, 'der').hasHighS()).toBe(true);
    await verifySignedBundle(parsed, [exportSigner]);
  });
  it('an untrusted signer → BUNDLE_SIGNER_UNTRUSTED', async () => {
    const stranger = await generateSessionKey();
    expect(await asyncCodeOf(async () => openExportBundle({ bundle: exp.bundle, recipientKey: await recipient(), trustedKeys: [stranger.publicKeyHex] }))).toBe(
      'BUNDLE_SIGNER_UNTRUSTED',
    );
  });
  it('sandbox style (empty signature fields): skip-verification opens, trusted keys → BUNDLE_SIGNATURE_INVALID', async () => {
    const unsigned = withField(withField(exp.bundle, 'dataSignature', ''), 'enclaveQuorumPublic', '');
    const recipientKey = await recipient();
    expect((await openExportBundle({ bundle: unsigned, recipientKey, trustedKeys: 'skip-verification' })).mnemonic).toBe(exp.mnemonic);
    expect(await asyncCodeOf(() => openExportBundle({ bundle: unsigned, recipientKey, trustedKeys: [exportSigner] }))).toBe('BUNDLE_SIGNATURE_INVALID');
  });
  it('tampered ciphertext → BUNDLE_SIGNATURE_INVALID when verified, DECRYPTION_FAILED when skipped', async () => {
    const inner = JSON.parse(utf8Decode(hex((JSON.parse(exp.bundle) as { data: string }).data))) as Record<string, string>;
    const ct = hex(inner.ciphertext!);
    ct[3]! ^= 1;
    const tamperedData = bytesToHex(utf8Encode(JSON.stringify({ ...inner, ciphertext: bytesToHex(ct) })));
    const tampered = withField(exp.bundle, 'data', tamperedData);
    const recipientKey = await recipient();
    expect(await asyncCodeOf(() => openExportBundle({ bundle: tampered, recipientKey, trustedKeys: [exportSigner] }))).toBe('BUNDLE_SIGNATURE_INVALID');
    expect(await asyncCodeOf(() => openExportBundle({ bundle: tampered, recipientKey, trustedKeys: 'skip-verification' }))).toBe('DECRYPTION_FAILED');
  });
  it('the wrong recipient key → DECRYPTION_FAILED', async () => {
    const other = await generateRecipientKey();
    expect(await asyncCodeOf(() => openExportBundle({ bundle: exp.bundle, recipientKey: other, trustedKeys: [exportSigner] }))).toBe('DECRYPTION_FAILED');
  });
  it('a fresh export sealed to a generated key opens (round trip through a signed envelope)', async () => {
    const enclave = await generateSessionKey();
    const recipientKey = await generateRecipientKey();
    const mnemonic = 'abandon ability able about above absent absorb abstract absurd abuse access accident';
    const { enc, ciphertext } = await hpkeSeal({ recipientPublicKey: hex(recipientKey.publicKeyUncompressedHex), plaintext: utf8Encode(mnemonic) });
    const bundle = await signedEnvelope(
      JSON.stringify({ encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ciphertext), organizationId: 'org-1' }),
      enclave,
    );
    expect(await openExportBundle({ bundle, recipientKey, trustedKeys: [enclave.publicKeyHex] })).toEqual({ mnemonic, organizationId: 'org-1' });
  });
  it.each([
    ['data without encappedPublic', { ciphertext: 'aa', organizationId: 'o' }],
    ['data without organizationId', { encappedPublic: otp.enc, ciphertext: 'aa' }],
    ['encappedPublic off the curve', { encappedPublic: vectors.invalidPoints[0]!.hex, ciphertext: 'aa', organizationId: 'o' }],
    ['ciphertext not hex', { encappedPublic: otp.enc, ciphertext: 'xx', organizationId: 'o' }],
  ])('%s → MALFORMED_BUNDLE', async (_why, inner) => {
    const bundle = JSON.stringify({ version: 'v1.0.0', data: bytesToHex(utf8Encode(JSON.stringify(inner))), dataSignature: '', enclaveQuorumPublic: '' });
    expect(await asyncCodeOf(async () => openExportBundle({ bundle, recipientKey: await recipient(), trustedKeys: 'skip-verification' }))).toBe(
      'MALFORMED_BUNDLE',
    );
  });
});

describe('oauthNonce', () => {
  it('matches the vector and node:crypto', async () => {
    expect(await oauthNonce(vectors.oauthNonce.clientPublicKey)).toBe(vectors.oauthNonce.nonce);
    const upper = vectors.stamp.publicKeyUncompressed.toUpperCase();
    expect(await oauthNonce(upper)).toBe(createHash('sha256').update(upper, 'utf8').digest('hex'));
  });
  it('rejects what is not a public key hex string → INVALID_ARGUMENT', async () => {
    for (const bad of ['', 'hello', vectors.oauthNonce.clientPublicKey + '00', 42 as unknown as string]) {
      expect(await asyncCodeOf(() => oauthNonce(bad))).toBe('INVALID_ARGUMENT');
    }
  });
});
