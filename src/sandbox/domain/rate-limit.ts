/**
 * The credential challenge rate limit (wire-reference §5: `429 RATE_LIMITED` with `Retry-After`).
 *
 * Decided here: at most {@link CHALLENGE_LIMIT} challenges per credential in any rolling
 * {@link CHALLENGE_WINDOW_MS} of sandbox time. Counted: `POST /auth/credentials/{id}/challenge`
 * (OTP and passkey) and the OTP sent when an OTP credential is added. The next one answers 429 with
 * `Retry-After` = whole seconds until the oldest counted challenge leaves the window. Generous
 * enough for "resend code", strict enough to test; `POST /sandbox/clock/advance` resets it.
 */
import { rateLimited } from '../errors.js';
import type { SandboxState } from '../context.js';

export const CHALLENGE_LIMIT = 5;
export const CHALLENGE_WINDOW_MS = 60 * 1000;

/** Takes a challenge slot for the credential or throws 429. */
export function takeChallengeSlot(state: SandboxState, authMethodId: string): void {
  const now = state.clock.now();
  const times = (state.store.challengeTimes.get(authMethodId) ?? []).filter((t) => t > now - CHALLENGE_WINDOW_MS);
  if (times.length >= CHALLENGE_LIMIT) {
    const oldest = times[0] as number;
    state.store.challengeTimes.set(authMethodId, times);
    throw rateLimited('Too many challenges for this credential: wait before asking again', (oldest + CHALLENGE_WINDOW_MS - now) / 1000);
  }
  times.push(now);
  state.store.challengeTimes.set(authMethodId, times);
}
