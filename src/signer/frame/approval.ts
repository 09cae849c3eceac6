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
 *   declared, after the user's press ({@link userApproved}: a trusted click, or a touch held) on the frame's approval screen that shows
 *   the scope's description (made by the frame from the call it makes, never from the parent's
 *   labels). One click approves one signature. No scope: refused.
 * Ends of sessions that a logout makes are signed with `approved: true` by the session manager
 * and never reach this hook.
 * Scopes run one at a time (a queue): one approval screen, one signature.
 *
 * Each prompt is for the one request it shows and expires (approval-route.ts `approvalDeadline`: 60 s,
 * or the service's `expiresAt` if sooner): an answer after that approves nothing, and the call fails
 * with SIGNER_APPROVAL_EXPIRED. Where it is answered (approval-route.ts `approvalPlace`): on the
 * frame's own screen, or in a window of the signer origin ({@link PopupApproval}); nothing is
 * remembered from one prompt to the next.
 */
import { WalletError, isWalletError } from '../../errors.js';
import type { SignRequest } from '../../transport/index.js';
import { approvalDeadline, approvalPlace, type HighValue, type Sending } from './approval-route.js';

/** What the approval screen shows: a title and labelled lines, all made by the frame. */
export interface ApprovalDescription {
  readonly title: string;
  readonly lines: readonly (readonly [label: string, value: string])[];
}

/**
 * Draws the approval screen and wires its two buttons; returns the function that removes it. The
 * renderer decides the look (issue 33 replaces it); the policy judges the event: `onApprove` counts
 * only for {@link userApproved} (a trusted click, or a touch lifted after its hold).
 */
export type RenderApproval = (description: ApprovalDescription, onApprove: (event: Event) => void, onDecline: (event: Event) => void) => () => void;

/** The answers of a prompt shown in the approval popup (approval-popup.ts), from the window the frame opened. */
export interface PopupAnswers {
  /** The user approved this very prompt in the window (a trusted click on its guarded button). */
  approved(): void;
  /** The user declined there, or closed the window. */
  declined(): void;
  /** The window could not be used (SIGNER_POPUP_BLOCKED): nothing approved. */
  failed(error: WalletError): void;
}

/**
 * Shows `description` on the frame's screen with a button that opens the approval window (a trusted
 * click) and asks there; `deadline` (ms since the epoch) is when the prompt expires. Returns the
 * function that removes the screen and closes the window.
 */
export type PopupApproval = (description: ApprovalDescription, answers: PopupAnswers, onDecline: (event: Event) => void, deadline: number) => () => void;

export interface PolicyOptions {
  /** The approval popup; without it, every prompt is on the frame's screen (the node tests' stub renderers). */
  readonly popup?: PopupApproval;
  /** Whether the browser reports occlusion (IntersectionObserver v2). */
  readonly tracksVisibility?: boolean;
  /** The host's high-value rule (its configuration only). */
  readonly highValue?: HighValue | undefined;
  /** The clock (ms since the epoch), default Date.now. */
  readonly now?: () => number;
  /** The server-clock estimate, server − `now` in ms (the frame's wallet's), default 0: the service's `expiresAt` is on its clock. */
  readonly serverOffsetMs?: () => number;
  /** The host's `approvalLifetimeMs` (config.ts): how long a prompt can be answered, at most 60 s. */
  readonly approvalLifetimeMs?: number | undefined;
}

/**
 * Whether `event` is the user's own "Approve" as a guarded button passes it on (approve-button.ts):
 * trusted, and a click or — on a touch screen, where only a hold approves — the lifted touch that
 * ended the hold. A click made by script (dispatchEvent, element.click()) is not the user.
 */
export function userApproved(event: Event): boolean {
  return event.isTrusted && (event.type === 'click' || event.type === 'pointerup');
}

/** Signed without a click: decided by the frame (see the module's comment). */
const WITHOUT_CLICK: ReadonlySet<string> = new Set(['refresh-session', 'otp-verify']);

interface Scope {
  readonly description: ApprovalDescription;
  readonly purposes: ReadonlySet<string>;
  readonly signal: AbortSignal;
  /** What a quote sends (for the high-value rule), when the scope executes one. */
  readonly sending?: Sending;
  /** The words of each request, made from the request itself (else {@link Scope.description}). */
  readonly describe?: (request: SignRequest) => ApprovalDescription | undefined;
  declined: boolean;
  /** Why the last prompt approved nothing other than a decline: expired, window blocked. */
  failure?: WalletError | undefined;
  /** {@link ScopeFacts.refused}. */
  readonly refused?: WalletError;
}

export interface SigningPolicy {
  /** The frame wallet's `onBeforeSign`. */
  onBeforeSign(request: SignRequest): Promise<boolean>;
  /**
   * Runs `run` as the one user action being approved: signatures it asks for with one of
   * `purposes` are shown with `description` and need a trusted click each. Waits for the scope
   * before it (one at a time). `declined()` says whether the user declined (vs. a refusal by rule).
   */
  approve<T>(
    description: ApprovalDescription,
    purposes: readonly string[],
    signal: AbortSignal,
    run: (declined: () => boolean, failure: () => WalletError | undefined) => Promise<T>,
    facts?: ScopeFacts,
  ): Promise<T>;
}

/** What the frame knows of a scope besides its description (read by the frame, never told by the parent). */
export interface ScopeFacts {
  /** What a quote sends, for the host's high-value rule. */
  readonly sending?: Sending;
  /** The words of each signature from its own request (signing out other devices: one prompt per session ended). */
  readonly describe?: (request: SignRequest) => ApprovalDescription | undefined;
  /**
   * Why every signature of this scope is refused without a prompt: the frame cannot put it in words
   * and the host does not allow unknown actions (a quote the words cannot read: methods.ts).
   */
  readonly refused?: WalletError;
}

/** The prompt's deadline passed. */
export function expired(): WalletError {
  return new WalletError('SIGNER_APPROVAL_EXPIRED', 'the approval expired before the user approved it (60 s, or the service\'s challenge expired): nothing was signed');
}

export function createSigningPolicy(render: RenderApproval, show: (visible: boolean) => void, options: PolicyOptions = {}): SigningPolicy {
  let current: Scope | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const now = options.now ?? Date.now;

  const ask = (scope: Scope, request: SignRequest): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      let remove: (() => void) | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = approvalDeadline(now(), request.expiresAt, options.approvalLifetimeMs, options.serverOffsetMs?.() ?? 0);
      let done = false;
      const finish = (approved: boolean) => {
        // One answer per prompt: whatever comes after the first changes nothing.
        if (done) return;
        done = true;
        clearTimeout(timer);
        request.signal.removeEventListener('abort', stop);
        scope.signal.removeEventListener('abort', stop);
        remove?.();
        remove = undefined;
        show(false);
        resolve(approved);
      };
      const stop = () => finish(false);
      const fail = (error: WalletError) => {
        if (done) return;
        scope.failure = error;
        finish(false);
      };
      /** An answer counts only before the deadline (a late timer on a busy machine changes nothing). */
      const approve = () => (now() < deadline ? finish(true) : fail(expired()));
      const decline = () => {
        if (done) return;
        scope.declined = true;
        finish(false);
      };
      scope.failure = undefined;
      if (request.signal.aborted || scope.signal.aborted) return resolve(false);
      // Deny by default: a signature the frame cannot put in words is not shown in other words.
      if (scope.refused !== undefined) return fail(scope.refused);
      if (now() >= deadline) return fail(expired());
      timer = setTimeout(() => fail(expired()), deadline - now());
      request.signal.addEventListener('abort', stop, { once: true });
      scope.signal.addEventListener('abort', stop, { once: true });
      const onDecline = (event: Event) => {
        if (event.isTrusted) decline();
      };
      const description = scope.describe?.(request) ?? scope.description;
      const place = approvalPlace({ purpose: request.purpose, tracksVisibility: options.tracksVisibility ?? true, highValue: options.highValue, sending: scope.sending });
      if (place === 'popup') {
        // Deny by default: a prompt that must be answered in the window is not shown here instead.
        if (options.popup === undefined) return fail(new WalletError('SIGNING_REFUSED', 'this approval must be answered in a window of the signer origin, which this frame cannot open'));
        remove = options.popup(description, { approved: approve, declined: decline, failed: fail }, onDecline, deadline);
      } else {
        remove = render(
          description,
          (event) => {
            if (userApproved(event)) approve();
          },
          onDecline,
        );
      }
      show(true);
    });

  return {
    async onBeforeSign(request) {
      if (WITHOUT_CLICK.has(request.purpose)) return true;
      const scope = current;
      if (scope === undefined || request.automatic || !scope.purposes.has(request.purpose)) return false;
      return ask(scope, request);
    },
    approve(description, purposes, signal, run, facts = {}) {
      const turn = queue.then(async () => {
        const scope: Scope = { description, purposes: new Set(purposes), signal, declined: false, ...facts };
        current = scope;
        try {
          return await run(
            () => scope.declined,
            () => scope.failure,
          );
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
 * SIGNER_DECLINED, after an expired prompt SIGNER_APPROVAL_EXPIRED, after a blocked window
 * SIGNER_POPUP_BLOCKED (a refusal by rule stays SIGNING_REFUSED).
 */
export function approveAction<T>(policy: SigningPolicy, description: ApprovalDescription, purposes: readonly string[], signal: AbortSignal, run: () => Promise<T>, facts?: ScopeFacts): Promise<T> {
  return policy.approve(
    description,
    purposes,
    signal,
    async (declined, failure) => {
      if (signal.aborted) throw aborted();
      try {
        return await run();
      } catch (error) {
        if (!isWalletError(error, 'SIGNING_REFUSED')) throw error;
        if (declined()) throw new WalletError('SIGNER_DECLINED', 'the user declined in the signer frame');
        throw failure() ?? error;
      }
    },
    facts,
  );
}
