/**
 * Journey 14, in every engine and both modes: a card, then a delegated key, whose creation is three
 * legs (an unsigned call answered 202, a signed one answered 202 with the second challenge, a signed
 * one answered 201). Both challenges are signed payloads shown before signing: in-origin the demo's
 * `onBeforeSign` logs them; in frame mode each is one approval in the signer frame (or its window),
 * the second asked once the leg the first signed was answered.
 */
import { approvePrompt, expect, loggedLegs, newLoggedInCustomer, test, textOf } from './fixtures.js';
import { inFrameMode } from './modes.js';

const LEGS = '/auth/delegated-keys$';

test('14 · card and delegated key: three legs in the request log', async ({ openDevice }) => {
  test.slow(); // a login, a card and a key of three legs (two approvals in frame mode): Firefox and WebKit on a shared machine (load 30) outrun 45 s
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  await tab.click('nav-actions');
  await tab.click('card-create');
  await expect.poll(() => textOf(tab, 'card-result')).toContain('Card ••••');
  await expect.poll(() => tab.evaluate(() => (document.querySelector('[data-testid="delegated-create"]') as HTMLButtonElement | null)?.disabled)).toBe(false);

  await tab.fill('delegated-nickname', 'Coffee card key');
  await tab.click('delegated-create');
  if (inFrameMode(tab)) {
    await approvePrompt(tab);
    await expect.poll(async () => (await loggedLegs(tab, 'POST', LEGS)).filter((l) => l.leg === '2' && l.status === '202' && l.signed === 'true')).toHaveLength(1);
    await approvePrompt(tab);
  }
  await expect.poll(() => textOf(tab, 'delegated-result')).toContain('is ACTIVE');
  const rows = () => tab.evaluate(() => [...document.querySelectorAll('[data-testid="delegated-row"]')].map((r) => ({ status: r.getAttribute('data-status'), text: r.textContent ?? '' })));
  await expect.poll(async () => (await rows()).filter((r) => r.status === 'ACTIVE')).toHaveLength(1);
  expect((await rows()).some((r) => r.text.includes('Coffee card key'))).toBe(true);

  await expect
    .poll(() => loggedLegs(tab, 'POST', LEGS))
    .toEqual([
      { leg: '1', status: '202', signed: 'false' },
      { leg: '2', status: '202', signed: 'true' },
      { leg: '3', status: '201', signed: 'true' },
    ]);
  if (!inFrameMode(tab)) {
    // The two payloads signed on the way, shown before signing (the app's onBeforeSign writes them to the log).
    const signedRows = () => tab.evaluate(() => [...document.querySelectorAll('[data-testid="log-row"][data-kind="sign"][data-approved="true"]')].filter((r) => /delegated/i.test(r.textContent ?? '')).length);
    await expect.poll(signedRows).toBe(2);
  }
});
