/**
 * Starts ONE demo stack (sandbox + proxy + demo login + Vite app) for the whole run on a free port
 * and hands its URL to the tests through the environment (`DEMO_URL`). The returned
 * function is Playwright's teardown: it closes the stack.
 *
 * The platform credentials are random per run (`E2E_CLIENT_ID`, `E2E_CLIENT_SECRET`, shared by the
 * sandbox and the proxy), so the secret-leak journey looks for a string that cannot turn up by chance.
 *
 * The sandbox answers in the profile `SANDBOX_PROFILE` names (`npm run test:e2e:service` runs the
 * journeys against the service profile, whose answers carry only what the real service sends);
 * the setup checks that the stack really answers in it.
 *
 * Before any test, the app is opened once in Chromium: Vite transforms (and, on a fresh clone,
 * pre-bundles) the modules now rather than inside the first journey, and a demo that does not
 * render stops the run here with one clear message instead of a timeout per journey.
 */
import { randomBytes } from 'node:crypto';
import { chromium, type FullConfig } from '@playwright/test';
import { startDemoStack } from '../demo/server/stack.js';
import { launchOptions } from '../scripts/chromium.mjs';
import { ensureNextAppBuilt } from './next-app-server.js';

async function warmUp(url: string): Promise<void> {
  const browser = await chromium.launch({ ...launchOptions(), headless: true });
  try {
    const page = await browser.newPage();
    await page.goto(url, { timeout: 60_000 });
    await page.getByTestId('screen-start').waitFor({ timeout: 60_000 });
  } catch (e) {
    throw new Error(`The demo at ${url} did not show its start screen: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await browser.close();
  }
}

/**
 * The profile the stack's sandbox answers in, told from an error body: the sandbox profile adds
 * `status` and `message`, the service profiles send the spec's `{code, reason}` only.
 */
async function answeredProfile(sandboxUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${sandboxUrl}/no-such-endpoint`, { headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` } });
  const body = (await res.json()) as Record<string, unknown>;
  return 'message' in body ? 'sandbox' : 'service';
}

/**
 * Starts the stack in `mode`: `frame` serves the signer page on a second port of localhost as well
 * (demo/server/stack.ts; e2e/global-setup-frame.ts, playwright.modes.config.ts). The mode is handed
 * to the tests as `E2E_DEMO_MODE`; the fixtures refuse a project of the other mode.
 */
export async function setUpDemo(mode: 'in-origin' | 'frame'): Promise<() => Promise<void>> {
  // The Next.js example's journeys need its build: made once here, before the workers start (one
  // build serves both modes: the example reads its mode at request time, e2e/next-app-server.ts).
  ensureNextAppBuilt();
  const clientId = `e2e-client-${randomBytes(6).toString('hex')}`;
  const clientSecret = `e2e-secret-${randomBytes(24).toString('hex')}`;
  const stack = await startDemoStack({ port: 0, sandboxPort: 0, quiet: true, watch: false, sandboxClientId: clientId, sandboxClientSecret: clientSecret, testSwitches: true, ...(mode === 'frame' ? { signer: { port: 0 } } : {}) });
  try {
    const wanted = process.env.SANDBOX_PROFILE || 'sandbox';
    const profile = await answeredProfile(stack.sandboxUrl, clientId, clientSecret);
    if ((profile === 'sandbox') !== (wanted === 'sandbox')) throw new Error(`The sandbox answers in the ${profile} profile, not ${wanted} (SANDBOX_PROFILE)`);
    process.stdout.write(`e2e: sandbox profile ${wanted}\n`);
    await warmUp(stack.url);
  } catch (e) {
    await stack.close();
    throw e;
  }
  process.env.DEMO_URL = stack.url;
  process.env.E2E_DEMO_MODE = mode;
  // The journeys that check what the service lists (session races) ask the sandbox directly.
  process.env.E2E_SANDBOX_URL = stack.sandboxUrl;
  process.env.E2E_CLIENT_ID = clientId;
  process.env.E2E_CLIENT_SECRET = clientSecret;
  return async () => {
    await stack.close();
  };
}

export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  return setUpDemo('in-origin');
}
