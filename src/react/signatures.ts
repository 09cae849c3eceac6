'use client';
/**
 * Signatures waiting for the user, as state the app renders in its own confirmation UI.
 *
 * `createSignatureRequests()` makes the queue whose `onBeforeSign` the wallet is created with;
 * `usePendingSignature()` shows its first entry. Invariants (test/react/signatures.test.ts, the
 * remount case in test/react/defects.browser.test.ts):
 * 1. Every request is answered exactly once: approve → true, reject → false, its `signal` aborted
 *    (the wallet stopped waiting) → it leaves the queue unanswered by the app.
 * 2. Deny by default: a request that arrives while no `usePendingSignature()` is mounted, and every
 *    request still queued when the last one unmounts, is refused (SIGNING_REFUSED for its call).
 *    A prompt that unmounts and mounts again within one task (StrictMode's second effect run, Fast
 *    Refresh, a new key, an `<Activity>` hidden and shown in one go) keeps the queue: the refusal
 *    waits one macrotask for a prompt to attach again. A prompt left hidden is unmounted.
 * 3. `policy` answers what it decides (true/false) without the user; automatic signatures (the
 *    wallet's own refresh and ending the session it replaced) never wait for the user: one the
 *    policy leaves undecided is refused. The default policy approves `delete-session` (ending a
 *    session: logout, signing out other devices, the end of a refreshed-away session), the
 *    automatic `refresh-session` and `otp-verify` (the login's own verify, signed with the key it
 *    makes once the user typed the code: not a decision to ask about), and leaves every other
 *    request to the user.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { WalletError } from '../errors.js';
import type { SignRequest } from '../transport/index.js';
import { useWalletContext } from './context.js';
import type { PendingSignature, SignatureRequests } from './signature-types.js';

export type { PendingSignature, SignatureRequests };


/** Options of {@link createSignatureRequests}. */
export interface SignatureRequestsOptions {
  /**
   * Answers a request without the user (true: sign, false: refuse), or leaves it to the user
   * (undefined; an automatic request left undecided is refused). Default
   * ({@link defaultSignaturePolicy}): approve `delete-session`, `otp-verify` and the automatic
   * `refresh-session`, leave the rest to the user. E.g. an app that asks before the login's own
   * signature too: `(r) => (r.purpose === 'otp-verify' ? undefined : defaultSignaturePolicy(r))`.
   */
  policy?: (request: SignRequest) => boolean | undefined | Promise<boolean | undefined>;
}

/**
 * The default policy of {@link createSignatureRequests}: approves ending a session (`delete-session`:
 * logout, signing out other devices, the end of a refreshed-away session: it only ever takes access
 * away), the login's own verify (`otp-verify`: the user's decision was typing the code; the key
 * signing is the one the login just made) and the automatic refresh; leaves the rest to the user.
 */
export function defaultSignaturePolicy(request: SignRequest): boolean | undefined {
  if (request.purpose === 'delete-session' || request.purpose === 'otp-verify') return true;
  return request.automatic ? request.purpose === 'refresh-session' : undefined;
}

function decode(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The queue of signatures waiting for the user: give its `onBeforeSign` to `createWallet` and the
 * queue to `<WalletProvider signatures>`; render {@link usePendingSignature}'s value.
 */
export function createSignatureRequests(options: SignatureRequestsOptions = {}): SignatureRequests {
  const policy = options.policy ?? defaultSignaturePolicy;
  let queue: PendingSignature[] = [];
  let mounted = 0;
  const listeners = new Set<() => void>();
  const notify = (): void => listeners.forEach((l) => l());

  function remove(entry: PendingSignature): boolean {
    const before = queue.length;
    queue = queue.filter((e) => e !== entry);
    if (queue.length === before) return false;
    notify();
    return true;
  }

  return {
    async onBeforeSign(request) {
      const decided = await policy(request);
      if (decided !== undefined) return decided === true;
      if (request.automatic || mounted === 0 || request.signal.aborted) return false;
      return new Promise<boolean>((resolve) => {
        const answer = (ok: boolean) => () => {
          if (remove(entry)) resolve(ok);
        };
        const entry: PendingSignature = Object.freeze({ purpose: request.purpose, payload: decode(request.payloadToSign), request, approve: answer(true), reject: answer(false) });
        request.signal.addEventListener('abort', answer(false), { once: true });
        queue = [...queue, entry];
        notify();
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    getSnapshot: () => queue[0] ?? null,
    attach() {
      mounted++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        // A prompt that mounts again in this task (an effect re-run) keeps what waits.
        if (--mounted === 0)
          setTimeout(() => {
            if (mounted === 0) for (const entry of queue) entry.reject();
          }, 0);
      };
    },
  };
}

const none = (): null => null;

/**
 * The first signature waiting for the user, or null: render your own confirmation from its
 * `purpose` and `payload`, and call `approve()` or `reject()`. While one of these is mounted the
 * wallet's signatures wait for it; when the last unmounts, what waits is refused. Needs
 * `<WalletProvider signatures>`, else WALLET_PROVIDER_MISSING: so in frame mode, where the signer
 * frame asks the user and the app has no confirmation of its own to render, it always throws.
 */
export function usePendingSignature(): PendingSignature | null {
  const { signatures } = useWalletContext('usePendingSignature');
  if (!signatures) throw new WalletError('WALLET_PROVIDER_MISSING', 'usePendingSignature() needs <WalletProvider signatures> (not in frame mode)');
  useEffect(() => signatures.attach(), [signatures]);
  return useSyncExternalStore(signatures.subscribe, signatures.getSnapshot, none);
}
