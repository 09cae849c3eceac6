/**
 * Where the user approves a signature, and until when (issue 33; THREAT-MODEL.md P1). Pure rules,
 * decided by the frame from what it knows (the request the library is about to sign, the quote it
 * read itself, the host's configuration, what the browser can report), never from the parent:
 *
 * - **Where**: in a window of the signer origin (the approval popup, approval-popup.ts) when the
 *   browser cannot report whether the frame is covered (no IntersectionObserver v2: Firefox and
 *   WebKit today), for a kind the host marks high-value (`highValue.kinds`), for a quote sending more
 *   than the host's `highValue.quoteAbove` (or sending another currency than the one it names: the
 *   frame cannot compare them, so it asks in the window), and for a purpose it does not know. In the
 *   frame otherwise (the guarded button, approve-guard.ts).
 * - **Until when**: {@link APPROVAL_MAX_MS} (or the host's shorter `approvalLifetimeMs`) after the
 *   prompt opened, or when the service's challenge expires (`expiresAt`), whichever comes first. An unreadable `expiresAt` counts as not given.
 */

/** A kind of signed action the host can mark high-value (the words' kinds: src/signer/words). */
export type HighValueKind =
  | 'add-credential'
  | 'remove-credential'
  | 'end-sessions'
  | 'update-account'
  | 'export'
  | 'create-delegated-key'
  | 'revoke-delegated-key'
  | 'execute-quote'
  | 'change-contact';

/** Every {@link HighValueKind}, as signer-config.json may name them. */
export const HIGH_VALUE_KINDS: readonly HighValueKind[] = [
  'add-credential',
  'remove-credential',
  'end-sessions',
  'update-account',
  'export',
  'create-delegated-key',
  'revoke-delegated-key',
  'execute-quote',
  'change-contact',
];

/** The host's high-value rule (`highValue` in signer-config.json). */
export interface HighValue {
  /** Kinds always approved in the popup. */
  readonly kinds: readonly HighValueKind[];
  /** Quotes sending more than `amount` (in the currency's smallest unit, as the service counts it) of `currency` are approved in the popup. */
  readonly quoteAbove?: { readonly amount: number; readonly currency: string };
}

/** The kind of each purpose the frame approves with a click (the library's `SignRequest.purpose`). */
const KIND_OF_PURPOSE: Readonly<Record<string, HighValueKind>> = {
  'add-credential': 'add-credential',
  'delete-credential': 'remove-credential',
  'delete-session': 'end-sessions',
  'update-internal-account': 'update-account',
  'export-wallet': 'export',
  'create-delegated-key': 'create-delegated-key',
  'revoke-delegated-key': 'revoke-delegated-key',
  'execute-quote': 'execute-quote',
  'change-contact': 'change-contact',
};

/** What a quote sends, as the frame read it (its `totalSendingAmount` and `sendingCurrency.code`). */
export interface Sending {
  readonly amount: number;
  readonly currency: string;
}

export interface PlaceInput {
  readonly purpose: string;
  /** Whether the browser reports occlusion (IntersectionObserver v2): approve-button.ts `tracksVisibility()`. */
  readonly tracksVisibility: boolean;
  readonly highValue?: HighValue | undefined;
  /** For a quote's execution: what it sends. */
  readonly sending?: Sending | undefined;
}

export type ApprovalPlace = 'frame' | 'popup';

/** Where this signature is approved (see the module's comment). */
export function approvalPlace(input: PlaceInput): ApprovalPlace {
  const kind = Object.hasOwn(KIND_OF_PURPOSE, input.purpose) ? KIND_OF_PURPOSE[input.purpose] : undefined;
  if (kind === undefined || !input.tracksVisibility) return 'popup';
  const high = input.highValue;
  if (high === undefined) return 'frame';
  if (high.kinds.includes(kind)) return 'popup';
  if (kind === 'execute-quote' && high.quoteAbove !== undefined) {
    const s = input.sending;
    if (s === undefined || s.currency !== high.quoteAbove.currency || !(s.amount <= high.quoteAbove.amount)) return 'popup';
  }
  return 'frame';
}

/** How long an approval prompt can be answered at most: 60 s. */
export const APPROVAL_MAX_MS = 60_000;

/**
 * When the prompt opened at `openedAt` (ms since the epoch, on the frame's local clock) stops
 * accepting an approval, on that same clock; `lifetimeMs` is the host's `approvalLifetimeMs` (never
 * more than {@link APPROVAL_MAX_MS}). The service's `expiresAt` is on the **service's** clock: it is
 * brought to the local one with `serverOffsetMs` (the server-clock estimate, server − local: the
 * frame's wallet's `serverNow() - Date.now()`). Without it a local clock an hour fast (journey 29b)
 * found every challenge expired before its prompt opened (SIGNER_APPROVAL_EXPIRED at once), and one
 * an hour slow would have let a prompt outlive its challenge (INVARIANTS.md I6: expiry is judged on
 * the server's clock).
 */
export function approvalDeadline(openedAt: number, expiresAt: string | undefined, lifetimeMs: number = APPROVAL_MAX_MS, serverOffsetMs = 0): number {
  const limit = openedAt + Math.min(lifetimeMs, APPROVAL_MAX_MS);
  const service = Date.parse(expiresAt ?? '') - serverOffsetMs; // NaN when absent or unreadable
  return Number.isFinite(service) ? Math.min(limit, service) : limit;
}
