/**
 * The demo stack's init scripts switch (demo/server/init-scripts.ts) over HTTP: off (what `npm
 * start` runs), its routes (and test-switches.ts's commit-code switch) are refused and no document changes; on, a registered device's cookie
 * puts the init script first in the demo's page and in the signer page (its headers, CSP included,
 * as they are), and only that device's scripts are served.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoStack, type DemoStack } from '../../demo/server/stack.js';
import { INIT_JS_ROUTE, INIT_SCRIPT_ROUTE } from '../../demo/server/init-scripts.js';
import { COMMIT_CODE_ROUTE } from '../../demo/server/test-switches.js';

const TAG = `<script src="${INIT_JS_ROUTE}"></script>`;
const token = () => randomBytes(16).toString('hex');
const cookie = (t: string) => ({ Cookie: `e2e-init=${t}` });

function register(base: string, t: string, source: string): Promise<Response> {
  return fetch(new URL(INIT_SCRIPT_ROUTE, base), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: t, source }) });
}

async function page(url: string, headers: Record<string, string> = {}): Promise<{ html: string; headers: Headers }> {
  const answer = await fetch(url, { headers: { Accept: 'text/html', ...headers } });
  expect(answer.status).toBe(200);
  return { html: await answer.text(), headers: answer.headers };
}

describe('switch off (npm start)', () => {
  let stack: DemoStack;
  beforeAll(async () => {
    stack = await startDemoStack({ port: 0, quiet: true, watch: false });
  }, 120_000);
  afterAll(() => stack?.close());

  it('refuses the routes and serves the page unchanged, whatever the cookie', async () => {
    const t = token();
    expect((await register(stack.url, t, 'window.x = 1;')).status).toBe(404);
    const set = await fetch(new URL(`${INIT_SCRIPT_ROUTE}?token=${t}`, stack.url));
    expect(set.status).toBe(404);
    expect(set.headers.get('set-cookie')).toBeNull();
    expect((await fetch(new URL(INIT_JS_ROUTE, stack.url), { headers: cookie(t) })).status).toBe(404);
    expect((await page(stack.url + '/', cookie(t))).html).not.toContain(INIT_JS_ROUTE);
    // The other test-only switch (test-switches.ts, journey 27): refused too, read or set.
    expect((await fetch(new URL(COMMIT_CODE_ROUTE, stack.url))).status).toBe(404);
    const set27 = await fetch(new URL(COMMIT_CODE_ROUTE, stack.url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ unloadable: true }) });
    expect(set27.status).toBe(404);
  });
});

describe('switch on', () => {
  let stack: DemoStack;
  beforeAll(async () => {
    stack = await startDemoStack({ port: 0, quiet: true, watch: false, testSwitches: true, signer: { port: 0 } });
  }, 180_000);
  afterAll(() => stack?.close());

  it('names a registered device by a cookie; an unknown token or a bad body is refused', async () => {
    const t = token();
    expect((await fetch(new URL(`${INIT_SCRIPT_ROUTE}?token=${t}`, stack.url))).status).toBe(404);
    expect((await register(stack.url, 'short', 'x')).status).toBe(400);
    expect((await register(stack.url, t, undefined as unknown as string)).status).toBe(400);
    expect((await fetch(new URL(INIT_SCRIPT_ROUTE, stack.url), { method: 'PUT' })).status).toBe(405);
    expect((await register(stack.url, t, 'window.first = 1;')).status).toBe(200);
    const set = await fetch(new URL(`${INIT_SCRIPT_ROUTE}?token=${t}`, stack.url));
    expect(set.status).toBe(200);
    expect(set.headers.get('set-cookie')).toBe(`e2e-init=${t}; Path=/; SameSite=Lax`);
  });

  it('serves a device its own scripts, in order; another device none', async () => {
    const [mine, other] = [token(), token()];
    await register(stack.url, mine, 'window.first = 1;');
    await register(stack.url, mine, 'window.second = 2;');
    await register(stack.url, other, 'window.other = 3;');
    const js = await (await fetch(new URL(INIT_JS_ROUTE, stack.url), { headers: cookie(mine) })).text();
    expect(js).toContain('window.first = 1;');
    expect(js.indexOf('window.first')).toBeLessThan(js.indexOf('window.second'));
    expect(js).not.toContain('window.other');
    expect(await (await fetch(new URL(INIT_JS_ROUTE, stack.url))).text()).toBe('');
  });

  it('puts the init script first in the demo page and the signer page of a registered device only, the signer headers unchanged', async () => {
    const t = token();
    await register(stack.url, t, 'window.x = 1;');
    const app = await page(stack.url + '/', cookie(t));
    expect(app.html).toMatch(new RegExp(`<head>${TAG.replace(/[.?/]/g, '\\$&')}`));
    expect(app.html).toContain('/src/main.ts');
    expect((await page(stack.url + '/')).html).not.toContain(INIT_JS_ROUTE);
    expect((await page(stack.url + '/', cookie(token()))).html).not.toContain(INIT_JS_ROUTE);

    const signerUrl = stack.signerUrl as string;
    const plain = await page(signerUrl);
    const injected = await page(signerUrl, cookie(t));
    expect(plain.html).not.toContain(INIT_JS_ROUTE);
    expect(injected.html).toContain(TAG);
    expect(injected.html.indexOf(TAG)).toBeLessThan(injected.html.indexOf('<script type="module"'));
    expect(injected.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
    expect(plain.headers.get('content-security-policy')).toContain("script-src 'self'");
    // The script is the signer origin's own ('self').
    expect(await (await fetch(new URL(INIT_JS_ROUTE, signerUrl), { headers: cookie(t) })).text()).toContain('window.x = 1;');
  });
});
