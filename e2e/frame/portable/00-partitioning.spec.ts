/**
 * Canary in every engine: the signer frame under another site (the app on 127.0.0.1) has storage of
 * its own, which the same signer origin opened top-level does not see: third-party storage is
 * partitioned (Chromium: turned on by the config; Firefox ESR and WebKitGTK: their default).
 */
import { readCanary, writeCanary } from '../in-page.js';
import { useFrameStack } from '../stack.js';
import { expect, openApp, test } from './steps.js';

const frameStack = useFrameStack();

test('third-party storage partitioning is on: the frame under another site has storage of its own', async ({ openDevice }) => {
  const device = await openDevice();
  const tab = await device.newTab();
  await openApp(tab, frameStack(), frameStack().crossSiteAppUrl);
  await tab.evaluate(
    (url) =>
      new Promise((resolve) => {
        const frame = document.createElement('iframe');
        frame.id = 'canary';
        frame.src = url;
        frame.addEventListener('load', resolve, { once: true });
        document.body.append(frame);
      }),
    frameStack().signerUrl,
  );
  const marker = `canary-${Date.now()}`;
  const embedded = tab.frame('#canary');
  // Blocked instead of partitioned: reading localStorage throws (SecurityError); fail with why.
  const wrote = await embedded.evaluate(writeCanary, marker);
  expect(wrote, 'the frame under another site must have (partitioned) storage').toBe('written');
  expect(await embedded.evaluate(readCanary)).toBe(marker);

  const top = await device.newTab();
  await top.goto(frameStack().signerUrl);
  expect(await top.evaluate(readCanary)).toBeNull();
});
