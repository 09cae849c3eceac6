/**
 * What the frame signs, and on whose word (THREAT-MODEL.md P1, P3). The frame's wallet is made with
 * {@link SigningPolicy.onBeforeSign}; every signature the library is about to make is judged here:
 *
 * - `refresh-session`: signed without a click. Only the frame's own session manager refreshes, with
 *   a key it generated, for a session it holds (the parent can ask for a refresh; it cannot choose
 *   the key or the session's successor).
 * - `otp-verify`: a login's own verify, signed without a click: only the frame's own OTP flow asks,
 *   with the key it generated for that login, after the user typed the code in the frame.
 * - anything else: only inside {@link SigningPolicy.approve}'s scope, for a purpose that scope
 *   declared, after a trusted click (`event.isTrusted`) on the frame's approval screen that shows
 *   the scope's description (made by the frame from the call it makes, never from the parent's
 *   labels). One click approves one signature. No scope: refused.
 * Ends of sessions that a logout makes are signed with `approved: true` by the session manager
 * and never reach this hook.
 * Scopes run one at a time (a queue): one approval screen, one signature.
 */
import { WalletError, isWalletError } from '../../errors.js';
import type { SignRequest } from '../../transport/index.js';

/** What the approval screen shows: a title and labelled lines, all made by the frame. */
export interface ApprovalDescription {
  readonly title: string;
  readonly lines: readonly (readonly [label: string, value: string])[];
}

/**
 * Draws the approval screen and wires its two buttons; returns the function that removes it. The
 * renderer decides the look (issue 33 replaces it); the policy judges the click: `onApprove` counts
 * only for a trusted click event.
 */
export type RenderApproval = (description: ApprovalDescription, onApprove: (event: Event) => void, onDecline: (event: Event) => void) => () => void;

/** Signed without a click: decided by the frame (see the module's comment). */
const WITHOUT_CLICK: ReadonlySet<string> = new Set(['refresh-session', 'otp-verify']);

interface Scope {
  readonly description: ApprovalDescription;
  readonly purposes: ReadonlySet<string>;
  readonly signal: AbortSignal;
  declined: boolean;
}

export interface SigningPolicy {
  /** The frame wallet's `onBeforeSign`. */
  onBeforeSign(request: SignRequest): Promise<boolean>;
  /**
   * Runs `run` as the one user action being approved: signatures it asks for with one of
   * `purposes` are shown with `description` and need a trusted click each. Waits for the scope
   * before it (one at a time). `declined()` says whether the user declined (vs. a refusal by rule).
   */
  approve<T>(description: ApprovalDescription, purposes: readonly string[], signal: AbortSignal, run: (declined: () => boolean) => Promise<T>): Promise<T>;
}

export function createSigningPolicy(render: RenderApproval, show: (visible: boolean) => void): SigningPolicy {
  let current: Scope | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const ask = (scope: Scope, request: SignRequest): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      let remove: (() => void) | undefined;
      const finish = (approved: boolean) => {
        request.signal.removeEventListener('abort', stop);
        scope.signal.removeEventListener('abort', stop);
        remove?.();
        remove = undefined;
        show(false);
        resolve(approved);
      };
      const stop = () => finish(false);
      if (request.signal.aborted || scope.signal.aborted) return resolve(false);
      request.signal.addEventListener('abort', stop, { once: true });
      scope.signal.addEventListener('abort', stop, { once: true });
      remove = render(
        scope.description,
        (event) => {
          // A click made by script (dispatchEvent, element.click()) is not the user: ignored.
          if (event.isTrusted && event.type === 'click') finish(true);
        },
        (event) => {
          if (!event.isTrusted) return;
          scope.declined = true;
          finish(false);
        },
      );
      show(true);
    });

  return {
    async onBeforeSign(request) {
      if (WITHOUT_CLICK.has(request.purpose)) return true;
      const scope = current;
      if (scope === undefined || request.automatic || !scope.purposes.has(request.purpose)) return false;
      return ask(scope, request);
    },
    approve(description, purposes, signal, run) {
      const turn = queue.then(async () => {
        const scope: Scope = { description, purposes: new Set(purposes), signal, declined: false };
        current = scope;
        try {
          return await run(() => scope.declined);
        } finally {
          current = undefined;
        }
      });
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}

/** The parent stopped waiting for the call (its `cancel`). */
export function aborted(): WalletError {
  return new WalletError('ABORTED', 'the app stopped waiting for this call');
}

/**
 * Runs `run` as one user action in `policy`'s scope (see {@link SigningPolicy.approve}): ABORTED if
 * the parent stopped waiting before it started; a refusal to sign after the user's decline is
 * SIGNER_DECLINED (a refusal by rule stays SIGNING_REFUSED).
 */
export function approveAction<T>(policy: SigningPolicy, description: ApprovalDescription, purposes: readonly string[], signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  return policy.approve(description, purposes, signal, async (declined) => {
    if (signal.aborted) throw aborted();
    try {
      return await run();
    } catch (error) {
      if (declined() && isWalletError(error, 'SIGNING_REFUSED')) throw new WalletError('SIGNER_DECLINED', 'the user declined in the signer frame');
      throw error;
    }
  });
}
