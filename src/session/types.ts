/** Shapes of the session layer: the session record, its events, the manager's interface. */
import type { SessionKey, Signer } from '../crypto/index.js';
import type { WalletError } from '../errors.js';
import type { KeyStore } from '../keys/index.js';
import type { Client } from '../transport/index.js';
import type { SessionHost } from './host.js';
import type { KeyPlan } from './key-plan.js';
import type { Session } from './records.js';
import type { ServerClock } from './server-clock.js';
import type { SessionService } from './service.js';
import type { AuthSession, CredentialType } from '../types.js';

// Session and KeyPlan live in leaf files (records.ts, key-plan.ts), which host.ts and service.ts
// import: declared here, they made import cycles through types.ts.
export type { KeyPlan, Session };

/**
 * Why an account was logged out: `user` (logout here), `other-tab` (logout in another tab),
 * `expired` (the session ran out), `revoked` (the service no longer accepts it).
 */
export type LogoutReason = 'user' | 'other-tab' | 'expired' | 'revoked';

/** The events of a wallet (`wallet.on`) and of a session manager, with each one's payload. */
export interface SessionEvents {
  /** A new session became current (login here, or in another tab). */
  session: Session;
  /** The session entered its refresh window (see `refreshWhenRemaining`). */
  expiring: Session;
  /** The session passed its expiry on the server's clock; its key is deleted. */
  expired: Session;
  /** A refresh replaced `previous` by `session` (here, or adopted from another tab). */
  refreshed: { previous: Session; session: Session };
  /** An automatic or explicit refresh failed; the old session stays usable until it expires. */
  'refresh-failed': { session: Session; error: WalletError };
  /** The account has no session left in this browser. */
  'logged-out': { accountId: string; reason: LogoutReason };
  /** Session metadata survived but the browser evicted its key. */
  'key-evicted': { session: Session };
  /**
   * The app's backend (its proxy) refused to forward the end of a session this browser still has to
   * end (a logout's, or the undo of a login or refresh): `401 LOGIN_REQUIRED` (the user's sign-in to
   * the app expired) or a `403`. The session may still be active on the service: it is kept as a
   * pending end (its key signs nothing else) and tried again when a tab loads, when the page comes
   * back, after the account's next login and at the next `logout()`. Ask the user to sign in to the
   * app again, then call `logout(accountId)` (or reload) to finish it.
   */
  'end-refused': { accountId: string; sessionId: string; error: WalletError };
  /** Keys could not be kept in IndexedDB and live in memory only (lost on reload). */
  'storage-fallback': { reason: string };
  /**
   * A refresh of the account's session started in this tab (`refreshing: true`, explicit or
   * automatic) or the last one under way here settled (`false`), whatever its outcome.
   */
  refreshing: { accountId: string; refreshing: boolean };
  /**
   * The account's sessions as this tab sees them changed (after that change's other events):
   * `origin` says whether this tab made the change or read another tab's (or the stored state).
   */
  changed: { accountId: string; origin: 'this-tab' | 'other-tab' };
}

/** Which session signs, when it must not be the current one. */
export interface SignerOptions {
  /** Use a session made by a credential other than this one (deleting that credential needs it). */
  excludeCredentialId?: string;
}

/**
 * The sessions of this browser, across tabs: one critical section per account, refreshes,
 * logout. `createWallet` makes one (the wallet's methods use it); {@link createSessionManager}
 * makes one alone.
 */
export interface SessionManager {
  /** The current session of the account (default: the account used last), or null. */
  current(accountId?: string): Session | null;
  /** Every session this browser holds, all accounts and credentials. */
  all(): Session[];
  /** Stores key and metadata, makes the session current, emits `session` (and tells other tabs). */
  adopt(session: Session, key: SessionKey): Promise<void>;
  /**
   * A signer over a session key. Throws NOT_LOGGED_IN, SESSION_EXPIRED, KEY_EVICTED, OTHER_CREDENTIAL_SESSION_REQUIRED.
   * Its `sign` fails NOT_LOGGED_IN once a logout of the account was requested (any tab) or the
   * session is no longer held here (I2).
   */
  signer(accountId?: string, options?: SignerOptions): Promise<Signer>;
  /** The session `signer` would use (same rules and errors), with its signer. */
  resolve(accountId?: string, options?: SignerOptions): Promise<{ session: Session; signer: Signer }>;
  /** New key → signed refresh with the current session → store the new session → delete the old key. */
  refresh(accountId?: string, plan?: KeyPlan): Promise<Session>;
  /** Ends every session of the account held here (server, then key), and in other tabs. */
  logout(accountId?: string): Promise<void>;
  /**
   * Drops sessions held here without asking the service, which ended them already (e.g. their
   * credential was deleted): keys and records go, another session of the account becomes current
   * (`session`), or the account is logged out with `reason` (default `revoked`). Other tabs follow.
   */
  forget(sessionIds: readonly string[], reason?: LogoutReason): Promise<void>;
  /** Active sessions of the account on the service (`GET /auth/sessions`). */
  list(accountId?: string): Promise<AuthSession[]>;
  /** Ends the account's active sessions that this browser does not hold; resolves to how many. */
  signOutOtherDevices(accountId?: string): Promise<number>;
  /** Loads persisted sessions (once; later calls re-read storage). */
  restore(): Promise<Session[]>;
  /**
   * Tells the manager a signed call with `session` was refused with `error`. When the service no
   * longer lists the session, it is dropped (`logged-out` with reason `revoked`) and SESSION_REVOKED
   * is returned; otherwise `error` is returned unchanged.
   */
  rejected(session: Session, error: WalletError): Promise<WalletError>;
  /** Calls `listener` on each `event`; returns the function that removes it. */
  on<E extends keyof SessionEvents>(event: E, listener: (payload: SessionEvents[E]) => void): () => void;
  /** Server clock estimate (epoch ms). */
  serverNow(): number;
  /** Stops timers, closes the channel to other tabs and removes every listener. */
  dispose(): void;
}

/** Options of {@link createSessionManager}. */
export interface SessionManagerOptions {
  /** The client the session calls go through. */
  client: Client;
  /** Where session keys and records are kept. */
  keyStore: KeyStore;
  /** Fraction of a session's lifetime left when it is refreshed (and `expiring` fires); default 1/3. */
  refreshWhenRemaining?: number;
  /** Refresh the current session automatically; default true. */
  autoRefresh?: boolean;
  /** Coordinate with other tabs (Web Locks + BroadcastChannel) where present; default true. */
  crossTab?: boolean;
  /** Lock and channel name prefix; give wallets over different key stores different names. */
  namespace?: string;
  /** Local clock; default Date.now. */
  now?: () => number;
  /** Replaces parts of the browser this manager uses (locks, channel, timers…): tests, unusual hosts. */
  host?: Partial<SessionHost>;
  /** The session endpoints; default: over `client`. */
  service?: SessionService;
}

/** When a login started, for its commit (see ManagedSessions.loggingIn). */
export interface LoginTicket {
  /** The account logging in. */
  readonly accountId: string;
  /** The account's logout nonce when the login started. */
  readonly logoutNonce: string | null;
  /** Aborted when a logout is requested: pass it as the verify call's `signingSignal`. */
  readonly signal: AbortSignal;
}

/** What a signed call of the app is bound to (see ManagedSessions.signingTicket). */
export interface SigningTicket {
  /** The account the call signs for (undefined: none could be named; an invalid one is kept as asked; resolving fails then). */
  readonly accountId: string | undefined;
  /** The account's logout nonce when the call started. */
  readonly logoutNonce: string | null;
  /** Aborted when a logout of the account is requested (in any tab): pass it as `signingSignal`. */
  readonly signal: AbortSignal;
  /** Stops tracking the call (call it when the call settles). */
  done(): void;
}

/** A SessionManager, plus what the wallet feeds it. */
export interface ManagedSessions extends SessionManager {
  /**
   * Binds a signed call of the app to the account's logout nonce now: a logout requested after this
   * (in any tab) aborts its prompt and refuses its signature (NOT_LOGGED_IN) if it is not sent yet.
   */
  signingTicket(accountId?: string): Promise<SigningTicket>;
  /**
   * The session and signer a call bound to `ticket` signs with now: like `resolve`, and
   * NOT_LOGGED_IN when a logout was requested since the ticket was taken. Ask it after the prompt.
   */
  resolveFor(ticket: SigningTicket, options?: SignerOptions): Promise<{ session: Session; signer: Signer }>;
  /** The server clock estimate (the wallet feeds it every answer's Date header). */
  readonly clock: ServerClock;
  /**
   * Runs a login's verify request and its `establish` (`fn`) holding the account's login lock,
   * shared: `signOutOtherDevices` (in any tab) waits for it, so it never ends the session a login
   * of this browser is about to store, and `logout` waits for it. `fn` gets the login's ticket for
   * `establish`: a logout requested after it was taken wins (its signal aborts a signature not yet
   * sent; a session the login made anyway is ended, NOT_LOGGED_IN). Call it after any WebAuthn
   * ceremony (it may wait).
   */
  loggingIn<T>(accountId: string, fn: (ticket: LoginTicket) => Promise<T>): Promise<T>;
  /**
   * Starts a login now (call it first in the flow's verify, before any work that may take time) and
   * returns its `loggingIn`: a logout called in this tab after this, or requested in another tab
   * after its nonce read, wins (I1), even if it resolved before the flow reached its verify request.
   */
  loginStarts(accountId: string): <T>(fn: (ticket: LoginTicket) => Promise<T>) => Promise<T>;
  /**
   * Builds the Session for a login answer, observes its server time and adopts it. With the
   * `ticket` of `loggingIn`, a logout requested since then undoes it (NOT_LOGGED_IN).
   */
  establish(
    answer: unknown,
    known: { accountId: string; credentialId: string; credentialType: CredentialType; key: SessionKey; legacy?: boolean; ticket?: LoginTicket },
  ): Promise<Session>;
}
