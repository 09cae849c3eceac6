// The browser entry takes no private scalar for ECDH: importHpkeRecipientKey (which once went through
// an extractable key and a JWK) lives in test/helpers only. Checked on the entry's exports and on the
// bundle an app would ship (esbuild, every dynamic import inlined).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as entry from '../../src/index.js';
import * as cryptoCore from '../../src/crypto/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the browser entry', () => {
  it('does not export importHpkeRecipientKey (nor does the crypto core)', () => {
    expect(Object.keys(entry)).not.toContain('importHpkeRecipientKey');
    expect(Object.keys(cryptoCore)).not.toContain('importHpkeRecipientKey');
    // The HPKE functions that stay are there.
    expect(typeof entry.hpkeSeal).toBe('function');
    expect(typeof entry.hpkeOpen).toBe('function');
  });

  it('its bundle never exports a key as JWK, nor imports an ECDH private key from bytes', async () => {
    const result = await build({
      entryPoints: ['src/index.ts'],
      absWorkingDir: ROOT,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const js = result.outputFiles[0]!.text;
    expect(js.length).toBeGreaterThan(10_000);
    expect(js).toContain('deriveBits'); // the HPKE code is in the bundle
    expect(js).not.toMatch(/["']jwk["']/);
    expect(js).not.toContain('importHpkeRecipientKey');
    // The PKCS#8 header of a P-256 private key (the old import's), in hex.
    expect(js).not.toContain('301306072a8648ce3d020106082a8648ce3d030107');
  });
});
