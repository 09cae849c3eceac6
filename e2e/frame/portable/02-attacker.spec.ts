/**
 * The attacker's tests in every engine (THREAT-MODEL.md P1, P3, P4): Chromium (partitioning on),
 * Firefox ESR and WebKitGTK through the portable driver. A script in the app's origin owns the
 * parent page; a page of a foreign origin embeds the signer. Each test ends on a positive event (an
 * answer, a refusal, the user's decline, the browser's refusal seen at the server), then checks with
 * the server that nothing was signed.
 */
import fc from 'fast-check';
import { accountPrivateInPage, connectAsAttacker, connectThroughLibrary, helloAgain, helloFromAnotherWindowFirst, postThenCall, scriptClickInFrame, startUpdateInPage, syntheticClicksFromParent } from '../in-page.js';
import { useFrameStack, type ObservedRequest } from '../stack.js';
import { expect, loggedInCustomer, newCustomer, openApp, outcome, shown, SIGNER_IFRAME, signerIn, test, textIn, visibleIn } from './steps.js';
import { tagged } from './tagged.js';

const frameStack = useFrameStack();

/** The answer the probe call of `postThenCall` gets from a frame that still works (a signed-out wallet's restore). */
const PROBE_ANSWERED = [{ type: 'result', id: 1_000_000, value: [] }];

test('P4: a page of a foreign origin cannot use the frame: the frame refuses its hello, and the browser refuses to show it (frame-ancestors)', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await openApp(tab, frameStack(), frameStack().foreignUrl);
  // The frame's own check, with frame-ancestors left out of its CSP.
  expect(await tab.evaluate(connectAsAttacker, [frameStack().signerNoAncestorsUrl, ''] as const)).toEqual({ type: 'refused', code: 'SIGNER_ORIGIN_NOT_ALLOWED' });
  expect(await tab.evaluate(connectThroughLibrary, [frameStack().signerNoAncestorsUrl, 15_000] as const)).toBe('SIGNER_ORIGIN_NOT_ALLOWED');
  // With the recommended headers the browser does not even show the page to a foreign parent.
  expect(await tab.evaluate(connectThroughLibrary, [frameStack().signerUrl, 3_000] as const)).toBe('SIGNER_FRAME_UNREACHABLE');
  expect(frameStack().signed()).toEqual([]);
});

test('P4: a hello from another window of an allowed origin is dropped; a second hello is refused; the first parent keeps its channel', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await newCustomer(tab, frameStack());
  // The parent embeds the frame; another window of the same (allowed) origin says hello to it first.
  // The parent's own hello, posted after it, is accepted: the other window's was not.
  expect(await tab.evaluate(helloFromAnotherWindowFirst, frameStack().signerUrl)).toMatchObject({ type: 'ready' });
  // A second hello from the parent itself: refused on its own port.
  expect(await tab.evaluate(helloAgain, frameStack().signerOrigin)).toEqual({ type: 'refused', code: 'SIGNER_FRAME_UNREACHABLE' });
  // The other window got nothing, not even a refusal; the first channel still answers.
  expect(await tab.evaluate(() => window.t.otherGot)).toEqual([]);
  expect(await tab.evaluate(postThenCall, [[], false] as const)).toEqual(PROBE_ANSWERED);
});

test('P4: random, malformed, oversized and replayed messages get no answer and leave the frame working (fast-check)', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await newCustomer(tab, frameStack());
  expect(await tab.evaluate(connectAsAttacker, [frameStack().signerUrl, ''] as const)).toMatchObject({ type: 'ready' });
  const nearlyValid = fc.oneof(
    fc.record({ type: fc.constant('call'), id: fc.oneof(fc.integer(), fc.double(), fc.string()), method: fc.string(), args: fc.anything() }),
    fc.record({ type: fc.constant('call'), id: fc.integer({ min: 1, max: 999_999 }), method: fc.constantFrom('restore', 'listSessions'), args: fc.array(fc.anything()), extra: fc.anything() }),
    fc.record({ type: fc.constant('call'), id: fc.integer({ min: 1, max: 999_999 }), method: fc.constantFrom('listSessions', 'updateAccount'), args: fc.constant(['x'.repeat(70_000)]) }),
    fc.record({ type: fc.constantFrom('cancel', 'result', 'error', 'hello', 'ready'), id: fc.anything() }),
  );
  const messages = [
    ...fc.sample(fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true }), { numRuns: 150, seed: 32 }),
    ...fc.sample(nearlyValid, { numRuns: 150, seed: 33 }),
  ];
  // Then every message the frame sent so far, replayed.
  expect(await tab.evaluate(postThenCall, [messages.map(tagged), true] as const)).toEqual(PROBE_ANSWERED);
});

test('P1: synthetic clicks and messages do not approve; only the user can, here by declining; nothing is signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const signedBefore = frameStack().signed().length;
  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  const frame = signerIn(tab);
  await shown(frame, 'signer-approval');
  await tab.evaluate(syntheticClicksFromParent);
  await frame.evaluate(scriptClickInFrame);
  // Still asking: the approval screen stays until the user answers.
  expect(await visibleIn(frame, 'signer-approval')).toBe(true);
  await frame.click('signer-decline');
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).not.toBe(true);
});

test('P1: the parent shows A and sends B: the frame shows B, what it really sends; a payload of the parent is refused before any request', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const signedBefore = frameStack().signed().length;
  // The app's page says "make it public" and asks for private.
  await tab.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<p id="app-says">Confirm: privateEnabled false</p>'));
  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  const frame = signerIn(tab);
  await shown(frame, 'signer-approval');
  expect(await textIn(frame, 'signer-approval')).toContain('Private mode');
  expect(await frame.evaluate(() => document.querySelector('[data-testid="signer-approval"] dd')?.textContent)).toBe('→ On');
  await frame.click('signer-decline');
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  // A payload to sign smuggled in as a field: the frame's own checks refuse it, nothing is sent.
  expect(
    await tab.evaluate(
      (id) =>
        (window.t.wallet as { updateAccount(id: string, patch: object): Promise<unknown> }).updateAccount(id, { privateEnabled: true, payloadToSign: '{"evil":true}' }).then(
          () => 'signed',
          (e: { code?: string }) => e.code,
        ),
      accountId,
    ),
  ).toBe('INVALID_ARGUMENT');
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).not.toBe(true);
});

test('P1: the frame removed while it asks: the call fails SIGNER_FRAME_UNREACHABLE; nothing is signed', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  const accountId = await loggedInCustomer(tab, frameStack());
  const signedBefore = frameStack().signed().length;
  await tab.evaluate(startUpdateInPage, [accountId, true] as const);
  await shown(signerIn(tab), 'signer-approval');
  await tab.evaluate((s) => document.querySelector(s)?.remove(), SIGNER_IFRAME);
  expect(await outcome(tab, 'update')).toEqual({ ok: false, code: 'SIGNER_FRAME_UNREACHABLE' });
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
  expect(await tab.evaluate(accountPrivateInPage, accountId)).not.toBe(true);
});

test('P3/P4: the signer in a sandboxed frame without allow-same-origin accepts no parent: the browser refuses its script', async ({ openDevice }) => {
  const tab = await (await openDevice()).newTab();
  await newCustomer(tab, frameStack());
  const signedBefore = frameStack().signed().length;
  // The signer page from an origin nothing else loads, so its script is fetched (never cached) and seen at the server.
  expect(await tab.evaluate(connectAsAttacker, [frameStack().observedSignerUrl, 'allow-scripts', 'load'] as const)).toBe('loaded');
  // An opaque origin: the browser refuses the signer's module script, either as a CORS request
  // from origin null that the signer does not allow (Chromium, Firefox), or by the page's own CSP,
  // whose 'self' an opaque origin does not match (WebKitGTK: a violation report for signer.js).
  const refused = (r: ObservedRequest) => (r.path === '/signer.js' && r.origin === 'null' && r.allowOrigin === undefined) || (r.report ?? '').includes('/signer.js');
  await expect.poll(() => frameStack().observedSignerRequests().some(refused), { message: "the browser refused the signer's script" }).toBe(true);
  const requests = frameStack().observedSignerRequests();
  for (const r of requests.filter((r) => r.path.endsWith('.js'))) expect(r).toMatchObject({ origin: 'null', allowOrigin: undefined });
  // The script never ran: it would have read its configuration first.
  expect(requests.map((r) => r.path)).not.toContain('/signer-config.json');
  expect(((await tab.evaluate(() => window.t.got)) as { type: string }[]).filter((m) => m.type === 'ready')).toEqual([]);
  expect(frameStack().signed().slice(signedBefore)).toEqual([]);
});
