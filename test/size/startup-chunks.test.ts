// What an app downloads before its first call (the main entry's startup chunks, as `npm run size`
// measures them: esbuild, minified ESM, code splitting) holds none of the code loaded on first use:
// the login flows, the signed actions, the session changes (login commit, refresh, signing out
// other devices, judging a refusal), the 0.1 storage migration, the enclave-bundle crypto
// (verify, seal, open, HPKE) behind the public entry's functions, and what sends a call (the
// exchange and the signed-retry engine: src/transport/calls.ts). Each is a plain import() of the
// module that holds the code (src/load-on-first-use.ts). The bytes are budgeted in real consumer
// builds by `npm run size`; this checks what is where, fast.
import { build, type Metafile } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const outdir = mkdtempSync(join(tmpdir(), 'ews-startup-'));

interface Chunk {
  path: string;
  entryPoint: string | undefined;
  inputs: string[];
}
let startup: Chunk[] = [];
let lazy: Chunk[] = [];
let importsOf: (input: string) => string[] = () => [];

beforeAll(async () => {
  const result = await build({
    entryPoints: ['src/index.ts'],
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    write: false,
    outdir,
    logLevel: 'silent',
  });
  const outputs: Metafile['outputs'] = result.metafile.outputs;
  const inputs: Metafile['inputs'] = result.metafile.inputs;
  importsOf = (input) => inputs[input]?.imports.map((i) => i.path) ?? [];
  const chunks = new Map(
    Object.entries(outputs)
      .filter(([path]) => path.endsWith('.js'))
      .map(([path, meta]) => [path, { path, entryPoint: meta.entryPoint, inputs: Object.entries(meta.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([input]) => input) }]),
  );
  const entry = [...chunks.values()].find((c) => c.entryPoint === 'src/index.ts')!;
  const seen = new Set<string>();
  const walk = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const i of outputs[path]!.imports) if (i.kind === 'import-statement') walk(i.path);
  };
  walk(entry.path);
  startup = [...seen].map((p) => chunks.get(p)!);
  lazy = [...chunks.values()].filter((c) => !seen.has(c.path));
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the main entry at startup', () => {
  it('holds none of the code loaded on first use', () => {
    const inputs = startup.flatMap((c) => c.inputs);
    expect(inputs).toContain('src/session/manager.ts');
    expect(inputs).toContain('src/session/operations.ts'); // expiry, eviction, logout: always there
    expect(inputs).toContain('src/crypto/bundles.ts'); // parseSignedBundle, parseOtpTargetBundle: synchronous, public
    expect(inputs).toContain('src/transport/client.ts'); // createClient checks its options at construction
    for (const moved of ['src/session/changes.ts', 'src/session/migrate.ts', 'src/crypto/enclave.ts', 'src/crypto/hpke.ts', 'src/crypto/hpke-schedule.ts', 'src/transport/calls.ts', 'src/transport/signed.ts', 'src/transport/http.ts']) {
      expect(inputs).not.toContain(moved);
    }
    expect(inputs.filter((i) => i.startsWith('src/flows/') || i.startsWith('src/actions/'))).toEqual([]);
  });

  it('each moved part is a lazy chunk of its own', () => {
    const entries = lazy.map((c) => c.entryPoint).filter((e) => e !== undefined);
    expect(entries).toEqual(expect.arrayContaining(['src/session/changes.ts', 'src/session/migrate.ts', 'src/crypto/enclave.ts', 'src/flows/otp.ts', 'src/flows/oauth.ts', 'src/flows/passkey.ts', 'src/actions/index.ts', 'src/transport/calls.ts']));
  });

  it('no module loaded on first use imports the package entry', () => {
    const entries = lazy.map((c) => c.entryPoint).filter((e) => e !== undefined);
    expect(entries.length).toBeGreaterThanOrEqual(8);
    expect(entries.filter((e) => importsOf(e).includes('src/index.ts'))).toEqual([]);
  });
});

describe('the enclave-bundle functions of the public entry', () => {
  it('load their chunk at the first call and give what the code itself gives', async () => {
    const entry = await import('../../src/index.js');
    const enclave = await import('../../src/crypto/enclave.js');
    const recipient = await entry.generateRecipientKey();
    const plaintext = entry.utf8Encode('loaded on first use');
    const sealed = await entry.hpkeSeal({ recipientPublicKey: entry.hexToBytes(recipient.publicKeyHex), plaintext });
    expect(entry.utf8Decode(await enclave.hpkeOpen({ recipientKey: recipient, enc: sealed.enc, ciphertext: sealed.ciphertext }))).toBe('loaded on first use');
    expect(entry.utf8Decode(await entry.hpkeOpen({ recipientKey: recipient, enc: sealed.enc, ciphertext: sealed.ciphertext }))).toBe('loaded on first use');
    // Argument errors are the code's own (a rejection, as before: the functions were async already).
    await expect(entry.verifySignedBundle({} as never, 'skip-verification')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
