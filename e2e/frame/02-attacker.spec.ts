/**
 * The attacker's tests (THREAT-MODEL.md P1, P4): a script in the app's origin owns the parent page;
 * a page of a foreign origin embeds the signer. Each test ends on a positive event (an answer, a
 * refusal, the user's decline) and then checks that nothing was signed.
 */
import { expect, test, type Page } from '@playwright/test';
import fc from 'fast-check';
import { accountPrivate, embedSigner, loggedInCustomer, newCustomer, signedRequests, signer, startUpdate, updateOutcome } from './helpers.js';
import { connectAsAttacker, connectThroughLibrary, scriptClickInFrame, syntheticClicksFromParent } from './in-page.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();

/** The attacker's own connection: it embeds the signer and says hello first; messages received go to `window.t.got`. */
function attackerConnect(page: Page, signerUrl: string, options: { sandbox?: string } = {}): Promise<unknown> {
  return page.evaluate(connectAsAttacker, [signerUrl, options.sandbox ?? ''] as const);
}

/** Posts `message` on the attacker's port, then a valid call; resolves to the answers received after. */
async function postThenCall(page: Page, messages: unknown[]): Promise<unknown[]> {
  return page.evaluate(
    (messages) =>
      new Promise<unknown[]>((resolve) => {
        const port = window.t.port as MessagePort;
        const got = window.t.got as unknown[];
        const from = got.length;
        const probe = 1_000_000;
        port.onmessage = (e) => {
          got.push(e.data);
          if ((e.data as { id?: number }).id === probe) resolve(got.slice(from).filter((m) => (m as { type?: string }).type !== 'state' && (m as { type?: string }).type !== 'event'));
        };
        for (const m of messages) {
          try {
            port.postMessage(m);
          } catch {
            // not cloneable: the browser refuses it before the frame could
          }
        }
        port.postMessage({ type: 'call', id: probe, method: 'restore', args: [] });
      }),
    messages,
  );
}

test('P4: a page of a foreign origin cannot use the frame: the browser refuses it (frame-ancestors), and so does the frame itself', async ({ page }) => {
  await page.goto(frameStack().appPage(frameStack().foreignUrl));
  await page.locator('body[data-ready="true"]').waitFor();
  // The frame's own check, with frame-ancestors left out of its CSP.
  const refused = await attackerConnect(page, frameStack().signerNoAncestorsUrl);
  expect(refused).toEqual({ type: 'refused', code: 'SIGNER_ORIGIN_NOT_ALLOWED' });
  // Through the library: the typed error.
  const code = await page.evaluate(connectThroughLibrary, [frameStack().signerNoAncestorsUrl, 15_000] as const);
  expect(code).toBe('SIGNER_ORIGIN_NOT_ALLOWED');
  // With the recommended headers the browser does not even show the page to a foreign parent.
  const blocked = await page.evaluate(connectThroughLibrary, [frameStack().signerUrl, 3_000] as const);
  expect(blocked).toBe('SIGNER_FRAME_UNREACHABLE');
});

test('P4: a hello from another window of an allowed origin is dropped; a second hello is refused; the first parent keeps its channel', async ({ page, context }) => {
  await newCustomer(page, frameStack());
  // The frame, embedded by the app.
  await embedSigner(page, frameStack().signerUrl);
  // A window of the same (allowed) origin, opened by the app, says hello to the frame first: it is not the frame's parent.
  const [opened] = await Promise.all([
    context.waitForEvent('page'),
    page.evaluate((url) => {
      window.open(url, '_blank');
    }, frameStack().appPage()),
  ]);
  await opened.locator('body[data-ready="true"]').waitFor();
  await opened.evaluate((origin) => {
    const channel = new MessageChannel();
    const got: unknown[] = [];
    window.t.got = got;
    channel.port1.onmessage = (e) => got.push(e.data);
    const frame = (window.opener as Window).frames[0] as Window;
    frame.postMessage({ protocol: 'embedded-wallet-signer.frame/1', type: 'hello' }, origin, [channel.port2]);
  }, frameStack().signerOrigin);
  // The real parent's hello is then accepted (the popup's was not, or this one would be refused).
  const ready = await page.evaluate(
    (origin) =>
      new Promise((resolve) => {
        const channel = new MessageChannel();
        window.t.port = channel.port1;
        channel.port1.onmessage = (e) => {
          if ((e.data as { type?: string }).type !== 'state') resolve(e.data);
        };
        (window.frames[0] as Window).postMessage({ protocol: 'embedded-wallet-signer.frame/1', type: 'hello' }, origin, [channel.port2]);
      }),
    frameStack().signerOrigin,
  );
  expect(ready).toMatchObject({ type: 'ready' });
  expect(await opened.evaluate(() => window.t.got)).toEqual([]);
  // A second hello from the parent itself: refused on its own port.
  const second = await page.evaluate(
    (origin) =>
      new Promise((resolve) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = (e) => resolve(e.data);
        (window.frames[0] as Window).postMessage({ protocol: 'embedded-wallet-signer.frame/1', type: 'hello' }, origin, [channel.port2]);
      }),
    frameStack().signerOrigin,
  );
  expect(second).toEqual({ type: 'refused', code: 'SIGNER_FRAME_UNREACHABLE' });
  // The first channel still answers.
  await page.evaluate(() => {
    window.t.got = [];
  });
  expect(await postThenCall(page, [])).toEqual([{ type: 'result', id: 1_000_000, value: [] }]);
});

test('P4: random, malformed, oversized and replayed messages get no answer and leave the frame working (fast-check)', async ({ page }) => {
  await newCustomer(page, frameStack());
  const ready = await attackerConnect(page, frameStack().signerUrl);
  expect(ready).toMatchObject({ type: 'ready' });
  const replayed = (await page.evaluate(() => window.t.got)) as unknown[];
  const nearlyValid = fc.oneof(
    fc.record({ type: fc.constant('call'), id: fc.oneof(fc.integer(), fc.double(), fc.string()), method: fc.string(), args: fc.anything() }),
    fc.record({ type: fc.constant('call'), id: fc.integer({ min: 1, max: 999_999 }), method: fc.constantFrom('restore', 'listSessions'), args: fc.array(fc.anything()), extra: fc.anything() }),
    fc.record({ type: fc.constant('call'), id: fc.integer({ min: 1, max: 999_999 }), method: fc.constantFrom('listSessions', 'updateAccount'), args: fc.constant(['x'.repeat(70_000)]) }),
    fc.record({ type: fc.constantFrom('cancel', 'result', 'error', 'hello', 'ready'), id: fc.anything() }),
  );
  const messages = [...fc.sample(fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true }), { numRuns: 150, seed: 32 }), ...fc.sample(nearlyValid, { numRuns: 150, seed: 33 }), ...replayed];
  const answers = await postThenCall(page, messages);
  expect(answers).toEqual([{ type: 'result', id: 1_000_000, value: [] }]);
});

test('P1: synthetic clicks and messages do not approve; only the user can, here by declining; nothing is signed', async ({ page }) => {
  const signed = signedRequests(page, frameStack().signerOrigin);
  const accountId = await loggedInCustomer(page, frameStack());
  await startUpdate(page, accountId, true);
  const frame = page.frames().find((f) => f.url().startsWith(frameStack().signerOrigin));
  if (frame === undefined) throw new Error('no signer frame');
  await expect(signer(page).getByTestId('signer-approval')).toBeVisible();
  // The parent's script: clicks dispatched at the iframe, and messages posted to its window.
  await page.evaluate(syntheticClicksFromParent);
  // A click made by script inside the frame itself (as a bug or injection there would): not trusted, ignored.
  await frame.evaluate(scriptClickInFrame);
  await expect(signer(page).getByTestId('signer-approval')).toBeVisible();
  await signer(page).getByTestId('signer-decline').click();
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  expect(signed.filter((s) => s.startsWith('PATCH'))).toEqual([]);
  expect(await accountPrivate(page, accountId)).not.toBe(true);
});

test('P1: the parent shows A and sends B: the frame shows B, what it really sends; a payload of the parent is refused before any request', async ({ page }) => {
  const signed = signedRequests(page, frameStack().signerOrigin);
  const accountId = await loggedInCustomer(page, frameStack());
  // The app's page says "make it public" and asks for private.
  await page.evaluate(() => {
    document.body.insertAdjacentHTML('beforeend', '<p id="app-says">Confirm: privateEnabled false</p>');
  });
  await startUpdate(page, accountId, true);
  const approval = signer(page).getByTestId('signer-approval');
  await expect(approval).toContainText('Private mode');
  await expect(approval.locator('dd').first()).toHaveText('→ On');
  await signer(page).getByTestId('signer-decline').click();
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_DECLINED' });
  // A payload to sign smuggled in as a field: the frame's own checks refuse it, nothing is sent.
  const smuggled = await page.evaluate((accountId) => {
    const wallet = window.t.wallet as { updateAccount(id: string, patch: object): Promise<unknown> };
    return wallet.updateAccount(accountId, { privateEnabled: true, payloadToSign: '{"evil":true}' }).then(
      () => 'signed',
      (e: { code?: string }) => e.code,
    );
  }, accountId);
  expect(smuggled).toBe('INVALID_ARGUMENT');
  expect(signed.filter((s) => s.startsWith('PATCH'))).toEqual([]);
  expect(await accountPrivate(page, accountId)).not.toBe(true);
});

test('P1: the frame removed while it asks: the call fails SIGNER_FRAME_UNREACHABLE and nothing is signed', async ({ page }) => {
  const signed = signedRequests(page, frameStack().signerOrigin);
  const accountId = await loggedInCustomer(page, frameStack());
  await startUpdate(page, accountId, true);
  await expect(signer(page).getByTestId('signer-approval')).toBeVisible();
  await page.evaluate(() => document.querySelector('iframe[title="Wallet signer"]')?.remove());
  expect(await updateOutcome(page)).toEqual({ ok: false, code: 'SIGNER_FRAME_UNREACHABLE' });
  expect(signed.filter((s) => s.startsWith('PATCH'))).toEqual([]);
  expect(await accountPrivate(page, accountId)).not.toBe(true);
});

test('P3/P4: the signer in a sandboxed frame without allow-same-origin accepts no parent', async ({ page }) => {
  await newCustomer(page, frameStack());
  // An opaque origin: its module script is a cross-origin fetch the signer does not allow, so the
  // page stays inert (or, were it to run, it could neither read its configuration nor store keys).
  const inert = page
    .waitForEvent('console', (m) => /signer\.js|no parent is accepted/.test(m.text()) && m.type() === 'error')
    .then((m) => m.text());
  const answer = attackerConnect(page, frameStack().signerUrl, { sandbox: 'allow-scripts' });
  const first = await Promise.race([inert, answer]);
  expect(typeof first === 'string' ? first : JSON.stringify(first)).toMatch(/signer\.js|no parent is accepted|SIGNER_STORAGE_UNAVAILABLE/);
  expect(((await page.evaluate(() => window.t.got)) as { type: string }[]).filter((m) => m.type === 'ready')).toEqual([]);
});
