// `npm run deps` (scripts/deps.mjs, rules in .dependency-cruiser.cjs) fails on each kind of import
// the design forbids: run on a small tree of src/ files that breaks every rule once, through a
// type-only import, a `typeof import()` type, a dynamic import() and a bare import.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/deps.mjs', import.meta.url));
const tree: Record<string, string> = {
  'src/index.ts': "export { w } from './wallet.js';\n",
  'src/wallet.ts': "import { encode } from './crypto/encoding.js';\nexport const w = (): unknown => [encode, import('./flows/otp.js')];\n",
  // crypto/ reaching up, through a type only; with wallet.ts → crypto it is also a cycle.
  'src/crypto/encoding.ts': "import type { w } from '../wallet.js';\nexport const encode = 1;\nexport type W = typeof w;\n",
  // A package entry imported for its side effects (the old chunking hint); also a cycle through wallet.ts's import().
  'src/flows/otp.ts': "import '../index.js';\nexport const otp = 1;\n",
  // transport/ knowing a flow, through a type.
  'src/transport/index.ts': "export type Otp = typeof import('../flows/otp.js');\n",
  // The sandbox sharing session code; the browser code reaching the proxy; something importing react/.
  'src/session/types.ts': "export type S = string;\n",
  'src/sandbox/server.ts': "import type { S } from '../session/types.js';\nexport const s: S = '';\n",
  'src/proxy/handler.ts': "export const handler = 1;\n",
  'src/keys/store.ts': "import { handler } from '../proxy/handler.js';\nimport { hook } from '../react/hooks.js';\nexport const k = [handler, hook];\n",
  'src/react/hooks.ts': 'export const hook = 1;\n',
  // session/ reaching a flow; a flow reaching the wallet facade.
  'src/session/manager.ts': "export const m = (): unknown => import('../flows/otp.js');\n",
  'src/flows/oauth.ts': "import type { w } from '../wallet.js';\nexport type O = typeof w;\n",
};

let dir = '';
let output = '';
let status: number | null = null;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ews-deps-'));
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
  output = `${run.stdout}${run.stderr}`;
  status = run.status;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run deps on a tree that breaks every rule', () => {
  it('exits 1', () => {
    expect(status, output).toBe(1);
  });

  it.each([
    ['no-cycle', 'src/crypto/encoding.ts'],
    ['no-entry-import', 'src/flows/otp.ts → src/index.ts'],
    ['crypto-imports-nothing-above', 'src/crypto/encoding.ts → src/wallet.ts'],
    ['transport-knows-no-flows', 'src/transport/index.ts → src/flows/otp.ts'],
    ['sandbox-shares-only-crypto', 'src/sandbox/server.ts → src/session/types.ts'],
    ['keys-below-transport', 'src/keys/store.ts → src/proxy/handler.ts'],
    ['browser-code-without-sandbox-or-proxy', 'src/keys/store.ts → src/proxy/handler.ts'],
    ['nothing-imports-react', 'src/keys/store.ts → src/react/hooks.ts'],
    ['session-below-flows', 'src/session/manager.ts → src/flows/otp.ts'],
    ['wallet-is-the-top', 'src/flows/oauth.ts → src/wallet.ts'],
  ])('reports %s (%s)', (rule, edge) => {
    const lines = output.split('\n').filter((line) => line.includes(`error ${rule}:`));
    expect(lines.length, output).toBeGreaterThan(0);
    if (rule !== 'no-cycle') expect(lines.some((line) => line.includes(edge)), output).toBe(true);
    else expect(output).toMatch(/no-cycle: src\/(crypto\/encoding|wallet)\.ts/);
  });

  it('finds the cycle made only by a dynamic import()', () => {
    // wallet.ts → (import()) flows/otp.ts → index.ts → wallet.ts
    expect(output).toMatch(/no-cycle: [\s\S]*src\/flows\/otp\.ts →\s+src\/index\.ts/);
  });
});
