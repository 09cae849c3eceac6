/**
 * What differs for the journeys of e2e/portable/ between the demo's two modes (issue 32): in-origin
 * (the wallet in the demo's page, playwright.config.ts) and frame (keys, codes, approvals and the
 * wallet's requests in the signer frame on a second port of localhost, playwright.portable-frame.config.ts).
 * The fixture marks the tabs of a frame-mode run ({@link framed}); the steps ask {@link inFrameMode}.
 *
 * - Where the wallet's state lives ({@link walletScope}): IndexedDB, localStorage, Web Locks and
 *   `fetch` are the signer frame's (its own origin and partition) in frame mode.
 * - The wallet's legs: in-origin the demo's request log shows them (its `onRequest`); in frame mode
 *   the frame sends them and the app is told nothing (THREAT-MODEL P1), so the test records them in
 *   the frame ({@link recordLegs}, a wrapper of the frame's `fetch` put there before each click in
 *   the tab: any engine's driver can, none needs request interception) and numbers them as
 *   e2e/legs.ts does.
 * - The prompt: the demo's dialog (`sign-purpose`, `sign-approve`) or the frame's approval screen,
 *   approved as a person does (in the frame, or in the approval window where the engine asks there).
 */
import { expect } from '@playwright/test';
import type { Scope, Tab } from '../drivers/driver.js';
import { approveIn, SIGNER_IFRAME, signerIn, textIn, visibleIn } from '../frame/portable/signer-steps.js';
import { numbered, type Row } from '../legs.js';

/** The demo's two modes: `in-origin` (playwright.config.ts) and `frame` (playwright.portable-frame.config.ts). */
export type DemoMode = 'in-origin' | 'frame';

const frameTabs = new WeakSet<Tab>();

/** Whether the tab is of a frame-mode run (its wallet is the signer frame's). */
export function inFrameMode(tab: Tab): boolean {
  return frameTabs.has(tab);
}

/** In the signer frame: records each request to the proxy (`/api/…`) it answers, in `globalThis.e2eLegs` (once per document). */
function recordLegs(): boolean {
  type Sent = { method: string; path: string; status: number; signed: boolean };
  const w = globalThis as { e2eLegs?: Sent[] };
  if (location.protocol === 'about:') return false; // the frame's document is not the signer's yet
  if (w.e2eLegs !== undefined) return true;
  const legs: Sent[] = [];
  w.e2eLegs = legs;
  const real = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, location.href);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const signed = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).has('service-wallet-signature');
    const response = await real.call(globalThis, input, init);
    if (url.pathname.startsWith('/api/')) legs.push({ method, path: url.pathname, status: response.status, signed });
    return response;
  };
  return true;
}

/** Frame mode: puts the legs' recorder into the tab's signer frame, if the app shows one. */
async function recordLegsIn(tab: Tab): Promise<void> {
  if (!(await tab.evaluate((s) => document.querySelector(s) !== null, SIGNER_IFRAME))) return;
  await signerIn(tab)
    .evaluate(recordLegs)
    .catch(() => undefined); // the frame is being replaced: the next click records
}

/**
 * The tab of a frame-mode run: before each click in the page, the signer frame records the wallet's
 * legs (what the click starts is recorded; what a load makes on its own before the first click is not).
 */
export function framed(tab: Tab): Tab {
  const wrapped: Tab = {
    click: async (id) => {
      await recordLegsIn(tab);
      await tab.click(id);
    },
    hover: (id) => tab.hover(id),
    press: (id, key) => tab.press(id, key),
    fill: (id, value) => tab.fill(id, value),
    evaluate: (fn, arg) => tab.evaluate(fn, arg),
    screenshot: (id) => tab.screenshot(id),
    goto: (path) => tab.goto(path),
    reload: () => tab.reload(),
    frame: (selector) => tab.frame(selector),
    popup: (open) => tab.popup(open),
    errors: () => tab.errors(),
    ...(tab.reports ? { reports: () => tab.reports!() } : {}),
    ...(tab.native ? { native: () => tab.native!() } : {}),
    ...(tab.addVirtualPasskey ? { addVirtualPasskey: () => tab.addVirtualPasskey!() } : {}),
    close: () => tab.close(),
    addInitScript: (fn, arg) => tab.addInitScript(fn, arg),
  };
  frameTabs.add(wrapped);
  return wrapped;
}

/** The wallet's legs of the frame-mode tab for `method` and `path` (a regular expression's source), oldest first, numbered as the wallet numbers them. */
export async function frameLegs(tab: Tab, method: string, path: string): Promise<Row[]> {
  await recordLegsIn(tab);
  const sent = await signerIn(tab)
    .evaluate(() => (globalThis as { e2eLegs?: Array<Omit<Row, 'leg'>> }).e2eLegs ?? [])
    .catch(() => []);
  const rows: Row[] = [];
  for (const request of sent) rows.push(numbered(rows, request));
  return rows.filter((r) => r.method === method && new RegExp(path).test(r.path));
}

/**
 * Where the wallet's storage, locks and network are: the page in-origin, the signer frame in frame
 * mode (once its document is the signer's).
 */
export async function walletScope(tab: Tab): Promise<Scope> {
  if (!inFrameMode(tab)) return tab;
  const frame = signerIn(tab);
  await expect.poll(() => frame.evaluate(() => location.protocol !== 'about:' && document.readyState === 'complete').catch(() => false), { message: 'the signer frame loaded' }).toBe(true);
  return frame;
}

/** What the frame's approval screen says for the purposes the journeys wait at (src/signer/words/strings.ts). */
const FRAME_WORDS = {
  'update-internal-account': /Change your wallet settings/,
  'delete-session': /Sign out (a device|devices)/,
} as const;

export type PromptPurpose = keyof typeof FRAME_WORDS;

/** Whether a prompt shows now: the demo's dialog, or the frame's approval (its Approve, or its "Open the approval window"). */
export async function promptShows(tab: Tab): Promise<boolean> {
  if (!inFrameMode(tab)) return visibleIn(tab, 'sign-approve');
  const frame = signerIn(tab);
  return (await visibleIn(frame, 'signer-approve')) || (await visibleIn(frame, 'signer-open-popup'));
}

/** Resolves once the prompt for `purpose` shows. */
export async function expectPrompt(tab: Tab, purpose: PromptPurpose): Promise<void> {
  if (!inFrameMode(tab)) await expect.poll(() => textIn(tab, 'sign-purpose')).toBe(purpose);
  else await expect.poll(() => textIn(signerIn(tab), 'signer-approval')).toMatch(FRAME_WORDS[purpose]);
}

/** In a page or frame: marks the visible prompt button among `ids` as pressed (false: none shows). */
function markPressed(ids: string[]): boolean {
  const button = ids.map((id) => document.querySelector(`[data-testid="${id}"]`)).find((b) => b?.checkVisibility());
  button?.setAttribute('data-e2e-pressed', '');
  return button !== undefined;
}

/** In a page or frame: whether the button marked pressed is gone (removed or hidden). */
function pressedGone(): boolean {
  return !(document.querySelector('[data-e2e-pressed]')?.checkVisibility() ?? false);
}

/** The user approves the prompt that shows, then waits until it went (a next prompt is another one). */
export async function approvePrompt(tab: Tab): Promise<void> {
  const scope = inFrameMode(tab) ? signerIn(tab) : tab;
  const ids = inFrameMode(tab) ? ['signer-approve', 'signer-open-popup'] : ['sign-approve'];
  await expect.poll(() => scope.evaluate(markPressed, ids).catch(() => false), { message: 'a prompt' }).toBe(true);
  if (inFrameMode(tab)) await approveIn(tab);
  else await tab.click('sign-approve');
  await expect.poll(() => scope.evaluate(pressedGone).catch(() => true), { message: 'the approved prompt went' }).toBe(true);
}

/**
 * Until `done()`: approves each prompt that shows on the way (a call that starts over signs a new
 * payload, asked again; in frame mode every signature of a user's action is asked).
 */
export async function approveUntil(tab: Tab, done: () => Promise<boolean>): Promise<void> {
  for (;;) {
    let state: 'done' | 'prompt' | null = null;
    await expect.poll(async () => (state = (await done()) ? 'done' : (await promptShows(tab)) ? 'prompt' : null), { message: 'done or a prompt' }).not.toBeNull();
    if (state === 'done') return;
    await approvePrompt(tab);
  }
}
