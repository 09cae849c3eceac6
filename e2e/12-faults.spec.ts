/**
 * Journey 24 · the service misbehaves on demand (the test kit's `faults` fixture arms the run's
 * sandbox): a 429 with Retry-After on the first leg and two `200 {"status":"PROCESSING"}` on the
 * signed retry of a private-mode toggle. The wallet waits, resends the identical request, and the
 * user sees the change go through once; the request log shows every attempt.
 */
import { autoApprove, byTest, expect, expectLegs, newLoggedInCustomer, signPrivateToggle, test } from './fixtures.js';

test('30 · faults: a 429 and two PROCESSING answers are ridden out; the toggle goes through once', async ({ page, context, faults }) => {
  await autoApprove(context);
  await newLoggedInCustomer(page);
  await faults.add({ kind: 'rate-limit', path: '/internal-accounts/*', method: 'PATCH', signed: false, retryAfterSeconds: 1 });
  await faults.add({ kind: 'processing', path: '/internal-accounts/*', method: 'PATCH', signed: true, times: 2 });

  await signPrivateToggle(page);
  await expect(byTest(page, 'private-state')).toHaveText('privateEnabled is ON.');
  // Every armed answer was used: one 429, two PROCESSING.
  expect(await faults.list()).toEqual([]);
  const patches = /\/internal-accounts\//;
  await expectLegs(page, 'PATCH', patches, { status: 429 }, 1);
  await expectLegs(page, 'PATCH', patches, { leg: 1, status: 202 }, 1);
  await expectLegs(page, 'PATCH', patches, { leg: 2, signed: true }, 3);
});
