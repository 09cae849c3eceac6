/** The shapes of the words module: what it is given and what it returns. */

/** The request the frame itself is about to send (the body as the JSON value it sends). */
export interface SignedRequest {
  readonly method: string;
  /** The path below the proxy's base URL, ids percent-encoded as the actions send them. */
  readonly path: string;
  readonly body?: unknown;
  /** The `Idempotency-Key` header, when the caller chose it (a quote's execute: a retry of an earlier attempt). */
  readonly idempotencyKey?: string;
}

/** What the frame knows besides the request (read by the frame itself, never told by the parent). */
export interface KnownFacts {
  /** The account's current values (for old → new). */
  readonly account?: Readonly<Record<string, unknown>>;
  /** The customer's current contact details (masked in credential lines, shown in a contact change). */
  readonly customer?: { readonly email?: string; readonly phoneNumber?: string };
  /** The credential being removed. */
  readonly credential?: { readonly type?: string; readonly nickname?: string };
  /**
   * The sessions the action ends: how many, whether they are all the other devices, and the one this
   * request ends as the service lists it (which sign-in made it, when) with its place among them.
   */
  readonly sessions?: {
    readonly count: number;
    readonly allOtherDevices: boolean;
    readonly ending?: { readonly id?: string; readonly type?: string; readonly nickname?: string; readonly createdAt?: string };
    /** 1-based place of `ending` among the `count` sessions. */
    readonly index?: number;
  };
  /** The delegated key being made or revoked: its limits as the host words them, its name and card. */
  readonly delegatedKey?: { readonly limits?: string; readonly nickname?: string; readonly cardId?: string };
  /** The wallet whose session signs the request, when the caller named one (a quote's execute: `options.accountId`). */
  readonly signingAccount?: string;
  /** The quote the frame fetched for the execute it is about to send. */
  readonly quote?: Readonly<Record<string, unknown>> & { readonly id?: unknown };
}

export interface WordsOptions {
  /** Overrides of the strings table (the host's configuration: language, wording). */
  readonly strings?: Readonly<Record<string, string>>;
  /** The user's locale for `Intl` (default: the runtime's). */
  readonly locale?: string;
  /** The time zone dates are shown in (default: the runtime's). */
  readonly timeZone?: string;
  /** Show a request it cannot describe as "unknown action" with its raw request (host configuration only; default false: refused). */
  readonly allowUnknown?: boolean;
}

export type WordsKind =
  | 'add-credential'
  | 'remove-credential'
  | 'end-sessions'
  | 'update-account'
  | 'export'
  | 'create-delegated-key'
  | 'revoke-delegated-key'
  | 'execute-quote'
  | 'change-contact'
  | 'unknown';

export interface Line {
  readonly label: string;
  readonly value: string;
}

/** What the approval screen shows, in the order a screen reader reads it. */
export interface WordsDescription {
  readonly kind: WordsKind;
  readonly title: string;
  readonly lines: readonly Line[];
  /** Sentences shown apart (cannot be undone, sessions that end with it…). */
  readonly warnings: readonly string[];
  /** Only for `unknown`: the raw request as JSON. */
  readonly raw?: string;
}
