/**
 * What the browser can get from the demo's origin: the platform secret and the Basic token never
 * appear in an answer of `/api`, `/demo` or the app (HTML, every module of the app's import graph),
 * and the dev server refuses server code (the sandbox, the proxy, demo/server).
 *
 * The stack runs with its own platform credentials (`sandboxClientId` / `sandboxClientSecret`, the
 * `SANDBOX_CLIENT_*` of `npm start`), random per run, so a hit cannot be a coincidence.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoStack, type DemoStack } from '../../demo/server/stack.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from '../../src/sandbox/index.js';
import { Browser, enc, signUp, type Answer } from './browser.js';
import { emailCredentialId, otpLogin } from './wallet.js';

const CLIENT_ID = `demo-test-client-${randomBytes(4).toString('hex')}`;
const CLIENT_SECRET = `demo-test-secret-${randomBytes(12).toString('hex')}`;
const TOKEN = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
/** Every spelling of the credentials that must stay in the Node process. */
const SECRET_FORMS = [CLIENT_SECRET, TOKEN, TOKEN.replace(/=+$/, ''), Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64url')];

const REPO = fileURLToPath(new URL('../../', import.meta.url));

let stack: DemoStack;

/** Throws when any secret spelling is in the answer's body or headers. */
function expectNoSecret(where: string, answer: { text: string; headers: Headers }): void {
  const headers = [...answer.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
  for (const form of SECRET_FORMS) {
    expect(answer.text.includes(form), `${where}: body holds a credential`).toBe(false);
    expect(headers.includes(form), `${where}: headers hold a credential`).toBe(false);
  }
  expect(/Basic\s+[A-Za-z0-9+/=]{8,}/.test(answer.text + headers), `${where}: a Basic token`).toBe(false);
}

async function fetchText(path: string): Promise<{ status: number; text: string; headers: Headers; contentType: string }> {
  const response = await fetch(stack.url + path);
  const text = await response.text();
  return { status: response.status, text, headers: response.headers, contentType: response.headers.get('content-type') ?? '' };
}

beforeAll(async () => {
  stack = await startDemoStack({ port: 0, quiet: true, watch: false, sandboxClientId: CLIENT_ID, sandboxClientSecret: CLIENT_SECRET });
});
afterAll(() => stack?.close());

describe('the platform credentials', () => {
  it('are the ones the stack was given: the sandbox refuses its defaults and accepts them', async () => {
    const call = (id: string, secret: string) =>
      fetch(`${stack.sandboxUrl}/internal-account?limit=1`, { headers: { Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` } });
    expect((await call(DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET)).status).toBe(401);
    expect((await call(CLIENT_ID, CLIENT_SECRET)).status).toBe(200);
  });

  it('never appear in an answer of /demo or /api: successes, 202 challenges, refusals and errors', async () => {
    const { browser, me } = await signUp(stack.url);
    const wallet = me.walletAccountId ?? '';
    const stranger = new Browser(stack.url);
    const other = await signUp(stack.url);
    // /demo
    await browser.get('/demo/me');
    await stranger.get('/demo/me');
    await stranger.post('/demo/signup', { fullName: 'x' });
    await stranger.post('/demo/signin', { email: 'nobody@example.com' });
    await stranger.post('/demo/sandbox/clock', { seconds: 1 });
    await stranger.post('/demo/sandbox/clock', { seconds: -1 });
    await stranger.get('/demo/nope');
    // /api: the user's own calls, with a full login
    await otpLogin(browser, await emailCredentialId(browser, wallet), me);
    await browser.get(`/api/internal-account?customerId=${enc(me.customer.id)}`);
    await browser.patch(`/api/internal-accounts/${enc(wallet)}`, { privateEnabled: true });
    await browser.post(`/api/internal-accounts/${enc(wallet)}/export`, { clientPublicKey: 'not-a-key' });
    await browser.post(`/api/sandbox/internal-accounts/${enc(wallet)}/fund`, { amount: 1 });
    // /api: refusals (hook, allowlist, path rules, upstream errors)
    await browser.get(`/api/customers/${enc(other.me.customer.id)}`);
    await browser.get('/api/transactions');
    await browser.get('/api/quotes/Quote:nope');
    await browser.post('/api/customers', { customerType: 'INDIVIDUAL' });
    await browser.get('/api/../customers');
    await browser.get('/api/auth/credentials%2f..');
    await browser.call('PUT', `/api/customers/${enc(me.customer.id)}`, { body: {} });
    await browser.post('/api/quotes', { source: { sourceType: 'ACCOUNT', accountId: wallet } });
    await browser.call('POST', '/api/quotes', { raw: '{"source":' });
    await stranger.get(`/api/internal-account?customerId=${enc(me.customer.id)}`);
    // The browser's own Authorization header is neither echoed nor forwarded.
    await browser.get(`/api/customers/${enc(me.customer.id)}`, { headers: { Authorization: 'Basic Zm9vOmJhcg==' } });

    const answers: Answer[] = [...browser.answers, ...stranger.answers];
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.some((x) => x.status === 202)).toBe(true);
    expect(answers.some((x) => x.status === 401)).toBe(true);
    expect(answers.some((x) => x.status >= 400 && x.status < 500 && x.status !== 401)).toBe(true);
    for (const [i, answer] of answers.entries()) expectNoSecret(`answer #${i} (${answer.status})`, { text: answer.text.replace(/Basic Zm9vOmJhcg==/g, ''), headers: answer.headers });
  });

  it("never appear in the app: the HTML, Vite's client and env, and every module main.ts imports", async () => {
    const seen = new Set<string>();
    const queue = ['/', '/index.html', '/@vite/client', '/@vite/env', '/src/main.ts'];
    let modules = 0;
    while (queue.length > 0) {
      const path = queue.shift() ?? '';
      if (seen.has(path)) continue;
      seen.add(path);
      const answer = await fetchText(path);
      expect(answer.status, path).toBe(200);
      expectNoSecret(path, answer);
      if (!/javascript|html/.test(answer.contentType)) continue;
      modules++;
      // Static and dynamic imports of our own code (the app, the library); pre-bundled packages
      // under node_modules hold nothing of ours.
      for (const match of answer.text.matchAll(/(?:from\s*|import\s*\(?\s*|src=)["'](\/[^"']+)["']/g)) {
        const spec = match[1] ?? '';
        if (spec.includes('/node_modules/') || spec.startsWith('/@vite/') || seen.has(spec)) continue;
        queue.push(spec);
      }
    }
    // The graph was really walked: screens, the library's entry, its crypto.
    expect(modules).toBeGreaterThan(20);
    expect([...seen].some((p) => p.startsWith('/src/screens/'))).toBe(true);
    expect([...seen].some((p) => p.includes('/src/crypto/'))).toBe(true);
    expect([...seen].filter((p) => /\/src\/(sandbox|proxy)\/|\/demo\/server\//.test(p))).toEqual([]);
  });
});

describe('the dev server refuses server code', () => {
  /** Lines of a server file that would only be in an answer that serves it (raw or transformed). */
  const MARKERS: Record<string, string> = {
    'src/sandbox/server.ts': 'DEFAULT_CLIENT_SECRET',
    'src/sandbox/index.ts': 'startSandbox',
    'src/proxy/index.ts': 'createProxy',
    'src/proxy/create-proxy.ts': 'createProxy',
    'demo/server/stack.ts': 'startDemoStack',
    'demo/server/upstream.ts': 'createUpstream',
    'src/proxy/ownership.ts': 'export function ownership(',
  };
  it('the markers looked for are in those files (so their absence means something)', () => {
    for (const [file, marker] of Object.entries(MARKERS)) expect(readFileSync(REPO + file, 'utf8'), file).toContain(marker);
  });

  const root = REPO.replace(/\/$/, '');
  const attempts: string[] = [
    // As the app's own paths (Vite's root is demo/).
    '/src/sandbox/index.ts',
    '/src/sandbox/server.ts',
    '/src/proxy/index.ts',
    '/server/stack.ts',
    '/server/upstream.ts',
    '/server/demo-api.ts',
    '/demo/server/stack.ts',
    '/src/../server/stack.ts',
    '/%2e%2e/src/sandbox/server.ts',
    '/..%2fsrc/sandbox/server.ts',
    // By file system path, with Vite's query suffixes.
    ...['src/sandbox/server.ts', 'src/sandbox/index.ts', 'src/proxy/index.ts', 'src/proxy/create-proxy.ts', 'demo/server/stack.ts', 'demo/server/upstream.ts', 'src/proxy/ownership.ts'].flatMap((file) =>
      ['', '?raw', '?import', '?import&raw', '?url', '?raw??', '?inline', '?worker_file&type=module', '?t=1'].map((q) => `/@fs${root}/${file}${q}`),
    ),
    `/@fs${root}/src/errors.ts/../sandbox/server.ts`,
    `/@fs${root}/src//sandbox/server.ts`,
    `/@fs${root}/src/./proxy/index.ts`,
    `/@fs${root}/src/%2e%2e/src/sandbox/server.ts`,
    `/@fs${root}/src/sandbox%2fserver.ts`,
    `/@fs${root}/src/sandbox/README.md`,
    `/@id/${root}/src/sandbox/server.ts`,
    `/@fs${root}/package.json`,
    `/@fs${root}/test/demo/secrets.test.ts`,
  ];

  it.each(attempts)('%s → not served', async (path) => {
    const answer = await fetchText(path);
    expectNoSecret(path, answer);
    if (answer.status !== 200) return;
    // A 200 may only be the app's HTML fallback, never a module or the file.
    expect(answer.contentType, `${path} served as ${answer.contentType}`).toMatch(/^text\/html/);
    expect(answer.text).toMatch(/^<!doctype html>/i);
    for (const marker of Object.values(MARKERS)) expect(answer.text, path).not.toContain(marker);
  });

  it('the library and the app are served (the refusals above are not a dead server)', async () => {
    for (const path of ['/src/main.ts', `/@fs${root}/src/index.ts`, `/@fs${root}/src/errors.ts`]) {
      const answer = await fetchText(path);
      expect([answer.status, answer.contentType.split(';')[0]], path).toEqual([200, 'text/javascript']);
    }
  });
});
