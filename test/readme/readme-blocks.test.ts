/**
 * Every ```ts block of README.md and src/proxy/README.md, type-checked with the repository's
 * TypeScript: each block becomes one module in a temporary folder inside the repository (so
 * `express`, `vite` and `node` types resolve from its node_modules), the package's entries map to
 * its sources, and the few names the blocks take from "your app" are declared below. A README
 * example that no longer compiles fails `npm test`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tsBlocks } from './blocks.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = ['README.md', 'src/proxy/README.md', 'src/testing/README.md'];

/** What the README blocks assume your app (or an earlier block) provides. */
const YOUR_APP = `
import type { ProxyHandler } from 'embedded-wallet-signer/proxy';
declare global {
  /** Your app's own session: the signed-in user, with the ids provisionCustomer returned. */
  function userFromSession(request: Request): Promise<{ id: string; customerId: string; accountId: string } | null>;
  const db: { users: { update(id: string, fields: { customerId: string; accountId: string }): Promise<void> } };
  function showLogin(): void;
  function showTopUp(): void;
  /** The enclave key the React quickstart trusts (your bootstrap, or the sandbox's). */
  const ENCLAVE_PUBLIC_KEY_HEX: string;
  /** From block 2 of the quickstart (the mount blocks use it). */
  const proxy: ProxyHandler;
  function bootstrap(request: Request): Promise<Response>;
}
export {};
`;


const dir = join(REPO, `.tmp-readme-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README code blocks', () => {
  it('every ```ts block of README.md and src/proxy/README.md type-checks', async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files: string[] = ['your-app.d.ts'];
    writeFileSync(join(dir, 'your-app.d.ts'), YOUR_APP);
    for (const doc of DOCS) {
      const markdown = readFileSync(join(REPO, doc), 'utf8');
      const blocks = tsBlocks(markdown);
      expect(blocks.length, doc).toBeGreaterThan(0);
      // React blocks (```tsx) are checked the same way, as .tsx files.
      const all = [...blocks.map((b) => [b, 'ts'] as const), ...tsBlocks(markdown, 'tsx').map((b) => [b, 'tsx'] as const)];
      all.forEach(([block, ext], i) => {
        // A block that starts with `// file: lib/wallet.ts` is that file of the app: other blocks import it
        // as './lib/wallet.js' or '@/lib/wallet' (Next.js's alias).
        const declared = /^\/\/ file: ([a-z0-9/_-]+\.tsx?)\b/.exec(block)?.[1];
        const name = declared ?? `${doc.replace(/[/.]/g, '_')}_block${i + 1}.${ext}`;
        if (declared !== undefined) mkdirSync(join(dir, declared, '..'), { recursive: true });
        // A block without import or export would be a script sharing globals with the others.
        const isModule = /^\s*(import|export)\s/m.test(block);
        writeFileSync(join(dir, name), `// ${doc}, block ${i + 1}\n${block}${isModule ? '' : '\nexport {};\n'}`);
        files.push(name);
      });
    }
    expect(files.length).toBeGreaterThanOrEqual(8);
    const entry = (path: string) => [join(REPO, path)];
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          isolatedModules: true,
          jsx: 'react-jsx',
          paths: {
            '@/*': [join(dir, '*')],
            'embedded-wallet-signer': entry('src/index.ts'),
            'embedded-wallet-signer/legacy': entry('src/legacy.ts'),
            'embedded-wallet-signer/proxy': entry('src/proxy/index.ts'),
            'embedded-wallet-signer/sandbox': entry('src/sandbox/index.ts'),
            'embedded-wallet-signer/error-codes': entry('src/error-codes.ts'),
            'embedded-wallet-signer/testing': entry('src/testing/index.ts'),
            'embedded-wallet-signer/react': entry('src/react/index.ts'),
            'embedded-wallet-signer/react/testing': entry('src/react/testing.ts'),
            'embedded-wallet-signer/frame': entry('src/signer/parent/index.ts'),
            'embedded-wallet-signer/signer-host': entry('src/signer/host/index.ts'),
          },
        },
        files,
      }),
    );
    const tsc = join(REPO, 'node_modules/.bin/tsc');
    const result = await promisify(execFile)(tsc, ['-p', join(dir, 'tsconfig.json')], { cwd: REPO }).then(
      () => ({ code: 0, output: '' }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('the extractor finds fenced ts (or tsx) blocks only', () => {
    expect(tsBlocks('a\n```ts\nconst x = 1;\n```\n```sh\nls\n```\n```ts\nlet y;\n```\n```tsx\n<a/>\n```\n')).toEqual(['const x = 1;\n', 'let y;\n']);
    expect(tsBlocks('```ts\nlet y;\n```\n```tsx\n<a/>\n```\n', 'tsx')).toEqual(['<a/>\n']);
  });
});
