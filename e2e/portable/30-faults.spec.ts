/**
 * Journey 30, in every engine and both modes: the service misbehaves on demand (the sandbox's
 * server-side faults, src/sandbox/faults.ts, armed through the test kit's client: they reach every
 * engine, and the signer frame's requests in frame mode): a 429 with Retry-After on the first leg
 * and two `200 {"status":"PROCESSING"}` on the signed retry of a private-mode toggle. The wallet
 * waits, resends the identical request, and the user sees the change go through once; the wallet's
 * legs (the demo's log, or the signer frame's in frame mode) show every attempt.
 */
import { SandboxClient } from '../../src/testing/index.js';
import { e2eSandbox } from '../fixtures.js';
import { expect, loggedLegs, type LoggedLeg, newLoggedInCustomer, signPrivateToggle, test, textOf } from './fixtures.js';

// A login and more on a machine shared by several runs: three times the default timeout (WebKit's
// journey 8 ran out of 45 s at load 20; Firefox's 30 took 43 s).
test.slow();

test('30 · faults: a 429 and two PROCESSING answers are ridden out; the toggle goes through once', async ({ openDevice }) => {
  const sandbox = new SandboxClient(e2eSandbox());
  const tab = await (await openDevice()).newTab();
  await newLoggedInCustomer(tab);
  try {
    await sandbox.addFault({ kind: 'rate-limit', path: '/internal-accounts/*', method: 'PATCH', signed: false, retryAfterSeconds: 1 });
    await sandbox.addFault({ kind: 'processing', path: '/internal-accounts/*', method: 'PATCH', signed: true, times: 2 });

    await signPrivateToggle(tab);
    expect(await textOf(tab, 'private-state')).toBe('privateEnabled is ON.');
    // Every armed answer was used: one 429, two PROCESSING.
    expect(await sandbox.listFaults()).toEqual([]);
    const legs = (want: (l: LoggedLeg) => boolean) => async () => (await loggedLegs(tab, 'PATCH', '/internal-accounts/')).filter(want).length;
    await expect.poll(legs((l) => l.status === '429')).toBe(1);
    await expect.poll(legs((l) => l.leg === '1' && l.status === '202')).toBe(1);
    await expect.poll(legs((l) => l.leg === '2' && l.signed === 'true')).toBe(3);
  } finally {
    await sandbox.clearFaults(); // the sandbox is the run's: no fault outlives its journey
  }
});
