/**
 * Steps of the journeys that race an answer on its way or a tab closed mid-way (19–21, 31, 34, 39),
 * in every engine and both modes. An answer is held on the service's side (the sandbox's test-only
 * `hold` fault, src/sandbox/faults.ts): the request is handled, its answer waits until the test
 * releases it on a state — no request interception, which only Chromium's driver has and which in
 * frame mode would have to reach the signer frame's requests. The service's counts are read from
 * the sandbox directly (platform credentials of the run), never through the page.
 */
import type { Tab } from '../drivers/driver.js';
import { SandboxClient } from '../../src/testing/client.js';
import { e2eSandbox } from '../fixtures.js';
import { expect, walletScope } from './fixtures.js';

/** The refresh route (relative to the service's base URL). */
const REFRESH = '/auth/sessions/:id/refresh';

const sandbox = (): SandboxClient => new SandboxClient(e2eSandbox());

/** Disarms the faults a journey armed (its holds released): the suite runs one test at a time. */
export async function clearFaults(): Promise<void> {
  await sandbox().clearFaults();
}

/**
 * Holds the answer to the next refresh's signed leg on the service: the request is handled (the
 * new session made), its answer waits. `reached()` resolves once it is ready and waiting;
 * `release()` sends it (a closed tab's answer then reaches no one).
 */
export async function holdRefreshAnswer(): Promise<{ reached(): Promise<void>; release(): Promise<void> }> {
  const client = sandbox();
  const fault = await client.addFault({ kind: 'hold', path: REFRESH, method: 'POST', signed: true });
  const held = async (): Promise<number> => (await client.listFaults()).find((f) => f.id === fault.id)?.held ?? 0;
  return {
    // A refresh on a busy machine (the first use loads its code): the time a user's click may take.
    reached: () => expect.poll(held, { message: 'the refresh’s answer is held', timeout: 30_000 }).toBe(1),
    release: async () => void (await client.releaseFault(fault.id)),
  };
}

/**
 * Counts the refresh requests the service receives from now on, first legs and signed retries apart
 * (a fault that changes nothing — `delay` 0 ms — uses up one of its `times` per matching request).
 */
export async function countRefreshes(): Promise<() => Promise<{ unsigned: number; signed: number }>> {
  const client = sandbox();
  const TIMES = 1000;
  const [unsigned, signed] = await Promise.all([false, true].map((s) => client.addFault({ kind: 'delay', ms: 0, path: REFRESH, method: 'POST', signed: s, times: TIMES })));
  return async () => {
    const listed = await client.listFaults();
    const used = (id: number): number => TIMES - (listed.find((f) => f.id === id)?.left ?? 0);
    return { unsigned: used(unsigned!.id), signed: used(signed!.id) };
  };
}

/** The account's critical section (src/session/critical-section.ts, the wallet's default namespace). */
const sectionName = (accountId: string): string => `embedded-wallet-signer:account:${accountId}`;

/**
 * Takes the account's section lock in `tab`'s wallet (the Web Lock its tabs share) and keeps it until
 * the returned function releases it. The lock is the wallet origin's: the page's in-origin, the
 * signer frame's in frame mode (every tab's frame shares the frame's origin and partition).
 */
export async function holdSection(tab: Tab, accountId: string): Promise<() => Promise<void>> {
  const wallet = await walletScope(tab);
  await wallet.evaluate(
    (name) =>
      new Promise<void>((taken) => {
        void navigator.locks.request(name, { mode: 'exclusive' }, () => {
          taken();
          return new Promise<void>((r) => ((globalThis as { e2eReleaseSection?: () => void }).e2eReleaseSection = r));
        });
      }),
    sectionName(accountId),
  );
  return () => wallet.evaluate(() => void (globalThis as { e2eReleaseSection?: () => void }).e2eReleaseSection?.());
}

/** Requests for the account's section lock waiting behind the one held (seen from `tab`'s wallet origin: locks are per origin). */
export async function waitingForSection(tab: Tab, accountId: string): Promise<number> {
  return (await walletScope(tab)).evaluate(async (name) => ((await navigator.locks.query()).pending ?? []).filter((l) => l.name === name).length, sectionName(accountId));
}
