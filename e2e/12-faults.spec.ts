/**
 * Journey 24 · the service misbehaves on demand (the test kit's `faults` fixture arms the run's
 * sandbox): a 429 with Retry-After on the first leg and two `200 {"status":"PROCESSING"}` on the
 * signed retry of a private-mode toggle. The wallet waits, resends the identical request, and the
 * user sees the change go through once; the request log shows every attempt.
 */
import { autoApprove, byTest, expect, logLegs, newLoggedInCustomer, signPrivateToggle, test } from './fixtures.js';

test('30 · faults: a 429 and two PROCESSING answers are ridden out; the toggle goes through once', async ({ page, context, faults }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await faults.add({ kind: 'rate-limit', path: '/internal-accounts/*', method: 'PATCH', signed: false, retryAfterSeconds: 1 });
  await faults.add({ kind: 'processing', path: '/internal-accounts/*', method: 'PATCH', signed: true, times: 2 });

  await signPrivateToggle(page);
  await expect(byTest(page, 'private-state')).toHaveText('privateEnabled is ON.');
  // Every armed answer was used: one 429, two PROCESSING.
  expect(await faults.list()).toEqual([]);
  const patches = logLegs(page, 'PATCH', /\/internal-accounts\//);
  await expect(patches.and(page.locator('[data-status="429"]'))).toHaveCount(1);
  await expect(patches.and(page.locator('[data-leg="1"][data-status="202"]'))).toHaveCount(1);
  await expect(patches.and(page.locator('[data-leg="2"][data-signed="true"]'))).toHaveCount(3);
});
