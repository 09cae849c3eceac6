/**
 * A prompt taller than the frame's first size (issue 32; CI7 saw the demo's payment prompt taller
 * than the signer frame, its "Approve" below the frame's fold, never armed). In Chromium with
 * partitioning on: a payment with many lines (a caller's Idempotency-Key, long enough to wrap, and
 * its warning) shows whole — the parent sizes the iframe to the height the frame's screen asks for
 * (src/signer/parent/frame-channel.ts `place`) — and "Approve" arms with the title and the words in
 * view; the payment is executed once. In a viewport shorter than the prompt the words scroll in
 * their box and "Approve" still arms, with the title and words in view (src/signer/page/signer.css).
 * The attacker's side: a parent that shrinks the frame below the words' minimum gets no armed
 * "Approve" (the screen is not fully visible: approve-button.ts `alsoSeen`), nor one whose words are
 * covered by an overlay that lets clicks through.
 */
import { expect, test, type Page } from '@playwright/test';
import { approveInFrame, loggedInCustomer, signer } from './helpers.js';
import { appRequestInPage, callInPage, callSettled } from './portable/prompt-in-page.js';
import type { Outcome } from './portable/prompt-journey.js';
import { useFrameStack } from './stack.js';

const frameStack = useFrameStack();
test.setTimeout(120_000);
const IFRAME = 'iframe[title="Wallet signer"]';

const executes = () => frameStack().signed().filter((s) => s.endsWith('/execute')).length;

/** A caller's key: a retry's, long enough to wrap in the frame (two lines: the key and its warning). */
const retryKey = () => `retry-${'0123456789abcdef'.repeat(4)}-${Date.now()}`;

/** Logged in, funded, a quote made; starts its execution with a caller's key. Resolves to the quote's id. */
async function payingPrompt(page: Page): Promise<string> {
  const accountId = await loggedInCustomer(page, frameStack());
  const me = (await page.evaluate(appRequestInPage, ['GET', '/demo/me'] as const)) as { payees: { accountId: string }[] };
  const destination = me.payees[0]?.accountId as string;
  await frameStack().fund(accountId, 20_000_000);
  await page.evaluate(callInPage, ['createQuote', [{ sourceAccountId: accountId, destinationAccountId: destination, amount: 1_000_000, description: 'A tall prompt' }]] as [string, unknown[]]);
  const quote = await page.evaluate(() => window.t.call as Promise<Outcome>);
  expect(quote, JSON.stringify(quote)).toMatchObject({ ok: true });
  const id = (quote.value as { id: string }).id;
  await page.evaluate(callInPage, ['executeQuote', [id, { idempotencyKey: retryKey() }]] as [string, unknown[]]);
  await expect(signer(page).getByTestId('signer-approval')).toContainText(id);
  return id;
}

/** The title, the first and last of the words, and both buttons are inside the page's viewport. */
async function wordsAndButtonsInView(page: Page): Promise<void> {
  const prompt = signer(page).getByTestId('signer-approval');
  await expect(prompt.getByRole('heading', { level: 1 })).toBeInViewport({ ratio: 1 });
  await expect(prompt.locator('dt').first()).toBeInViewport({ ratio: 1 });
  await expect(prompt.getByTestId('signer-approve')).toBeInViewport({ ratio: 1 });
  await expect(prompt.getByTestId('signer-decline')).toBeInViewport({ ratio: 1 });
}

async function paid(page: Page, id: string, before: number): Promise<void> {
  await expect.poll(() => page.evaluate(callSettled), { message: 'the payment answered' }).toBe(true);
  const result = await page.evaluate(() => window.t.call as Promise<Outcome>);
  expect(result, JSON.stringify(result)).toMatchObject({ ok: true, value: { id } });
  expect(executes()).toBe(before + 1);
}

test('a payment with many lines shows whole in a frame sized to it; Approve arms and pays once', async ({ page }) => {
  const before = executes();
  const id = await payingPrompt(page);
  await expect(signer(page).getByTestId('signer-approve')).toHaveAttribute('data-seen', 'fully');
  await expect(signer(page).getByTestId('signer-approve')).toBeEnabled();
  await wordsAndButtonsInView(page);
  // Taller than the frame's first size (480 px), so the frame grew to it: nothing of the words scrolls.
  const words = signer(page).getByTestId('signer-approval-words');
  const needed = await words.evaluate((box) => ({ scroll: box.scrollHeight, client: box.clientHeight, page: document.documentElement.scrollHeight, inner: innerHeight }));
  expect(needed.inner, JSON.stringify(needed)).toBeGreaterThan(480);
  expect(needed.scroll, JSON.stringify(needed)).toBeLessThanOrEqual(needed.client);
  expect(needed.page, JSON.stringify(needed)).toBe(needed.inner);
  expect((await page.locator(IFRAME).boundingBox())?.height).toBe(needed.inner);
  await page.screenshot({ path: test.info().outputPath('tall-prompt.png') });
  await approveInFrame(signer(page));
  await paid(page, id, before);
});

test('in a viewport shorter than the prompt the words scroll in their box; Approve arms with the title and words in view', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 420 });
  const before = executes();
  const id = await payingPrompt(page);
  const words = signer(page).getByTestId('signer-approval-words');
  await expect.poll(() => words.evaluate((box) => box.scrollHeight > box.clientHeight), { message: 'the words scroll' }).toBe(true);
  expect((await page.locator(IFRAME).boundingBox())?.height).toBe(420);
  await expect(signer(page).getByTestId('signer-approve')).toBeEnabled();
  await wordsAndButtonsInView(page);
  await page.screenshot({ path: test.info().outputPath('short-viewport.png') });
  await approveInFrame(signer(page));
  await paid(page, id, before);
});

test('attacker: a frame shrunk below the words\' minimum, or words covered, leaves Approve disarmed; the user declines, nothing paid', async ({ page }) => {
  const before = executes();
  await payingPrompt(page);
  const approve = signer(page).getByTestId('signer-approve');
  await expect(approve).toBeEnabled();
  // Shrunk so that the title and buttons would fit but the words' box not: "Approve" falls below the fold.
  const height = await page.evaluate((s) => {
    const frame = document.querySelector(s) as HTMLElement;
    const was = frame.style.height;
    frame.style.height = '200px';
    return was;
  }, IFRAME);
  await expect(approve).toHaveAttribute('data-seen', 'not');
  await expect(approve).toBeDisabled();
  // Back to its size, and an overlay over the words only (clicks pass through): still not armed.
  await page.evaluate(([s, was]) => {
    const frame = document.querySelector(s) as HTMLElement;
    frame.style.height = was;
    const box = frame.getBoundingClientRect();
    const cover = document.createElement('div');
    cover.id = 'fake-words';
    cover.textContent = 'Send 0.01 USDC to a friend';
    cover.style.cssText = `position:fixed;left:${box.left}px;top:${box.top + 40}px;width:${box.width}px;height:120px;background:#fff;pointer-events:none;z-index:2147483647`;
    document.body.append(cover);
  }, [IFRAME, height] as const);
  await expect(approve).toHaveAttribute('data-seen', 'not');
  await expect(approve).toBeDisabled();
  await signer(page).getByTestId('signer-decline').click();
  await expect.poll(() => page.evaluate(callSettled)).toBe(true);
  expect(await page.evaluate(() => window.t.call as Promise<Outcome>)).toMatchObject({ ok: false, code: 'SIGNER_DECLINED' });
  expect(executes()).toBe(before);
});
