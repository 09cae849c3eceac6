/**
 * S14 (I1): a `logout()` call sends at most one DELETE of each session it ends, and none of a session
 * whose end the browser has already been told of (a DELETE of it answered 2xx, or 404: not active),
 * unless storage has refused a write before that DELETE. Once storage refused one, the second half
 * promises nothing: what a tab holds in memory (held.ts) does not learn another tab's answer, and a
 * held list of pending ends is merged back with the stored one (an end listed twice is sent again
 * and found gone). Seeds -1966364282 and 7 of 1,000 runs found it three ways (a storage-full logout,
 * then the end answered in another tab, then a logout that sends the held end).
 * The first half (one DELETE of each session per call) holds whatever storage does.
 * The DELETEs are the scripted service's (`endsSent`), each named by the `logout()` call whose work
 * asked for it (harness.ts `logoutCall`); work of a refresh, a load or a background finish is not a
 * call's, and is not counted against it. A tab on the memory store is a wallet of its own (I1): an
 * end it was answered is another device's to the shared tabs, and theirs to it (seed 409707934, lease
 * locks: a memory tab's signOutOtherDevices() ended the shared session, then a shared tab's logout
 * sent its own DELETE, answered 404), so only an answer to a tab of the same store is known.
 */
import type { EndSent } from './service-records.js';

/** One `logout()` call of the model: its tab, account and the step it was called at. */
export interface LogoutRun {
  tab: number;
  account: string;
  at: number;
}

/** The violations of S14 among the DELETEs sent so far. */
export function logoutDeleteViolations(ends: readonly EndSent[], runs: ReadonlyMap<number, LogoutRun>, refusedWrites: readonly number[], storeOf: (tab: number) => string): string[] {
  const violations: string[] = [];
  const sent = new Map<string, number>();
  for (const e of ends) {
    if (e.logout === undefined) continue;
    const run = runs.get(e.logout);
    const name = `logout(${run?.account.slice(-1)})#${e.logout}@${run?.tab} (step ${run?.at}; DELETE sent by tab ${e.tab})`;
    const key = `${e.logout} ${e.sessionId}`;
    const n = (sent.get(key) ?? 0) + 1;
    sent.set(key, n);
    if (n > 1) violations.push(`S14: ${name} sent DELETE #${n} of ${e.sessionId}`);
    const known = ends.find((f) => f.sessionId === e.sessionId && storeOf(f.tab) === storeOf(e.tab) && f.answer !== undefined && f.answer.seq < e.seq && (f.answer.outcome === 'ended' || f.answer.outcome === 'gone') && !refusedWrites.some((w) => w < e.seq));
    if (known) violations.push(`S14: ${name} sent a DELETE of ${e.sessionId} after one of tab ${known.tab} was answered ${known.answer?.outcome}`);
  }
  return violations;
}
