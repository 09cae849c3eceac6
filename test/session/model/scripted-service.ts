/**
 * The payments service of the session model test, scripted: the sessions it holds and every request
 * of the tabs held until the test answers it (delivered, lost after processing, dropped before
 * arriving, refused by the app's proxy; a signature's prompt approved or refused first).
 */
import type { SessionKey } from '../../../src/crypto/index.js';
import { WalletError } from '../../../src/errors.js';
import type { SessionService, SigningOptions } from '../../../src/session/index.js';
import type { SessionSigner } from '../../../src/session/service.js';
import type { AuthSession } from '../../../src/types.js';
import { LIFETIME, logoutCall, type Clock } from './harness.js';
import type { Answer, EndSent, Origin, Pending, ServiceSession } from './service-records.js';

/** The service, scripted: state plus requests held until `answer`. */
export class ScriptedService {
  readonly sessions = new Map<string, ServiceSession>();
  readonly pending: Pending[] = [];
  readonly usedKeys = new Set<string>();
  /** Violations of "one refresh per session" seen when a refresh request was sent. */
  readonly doubleRefreshes: string[] = [];
  private readonly refreshState = new Map<string, 'in-flight' | 'done'>();
  private ids = 0;

  constructor(private readonly clock: Clock) {}

  active(s: ServiceSession): boolean {
    return s.ended === undefined && this.clock.now < s.expiresAt;
  }

  /** The test's step counter (orders logins against logout calls). */
  step = 0;

  private create(accountId: string, publicKeyHex: string, origin: Origin, tab: number): ServiceSession {
    if (this.usedKeys.has(publicKeyHex)) throw new WalletError('INVALID_INPUT', 'public key already backs a session', { status: 400 });
    this.usedKeys.add(publicKeyHex);
    const s: ServiceSession = { id: `Session:${++this.ids}`, accountId, publicKeyHex, origin, tab, createdAt: this.clock.now, expiresAt: this.clock.now + LIFETIME, delivered: false, startedAt: -1, orphaned: false, endLost: false };
    this.sessions.set(s.id, s);
    return s;
  }

  toAuthSession(s: ServiceSession): AuthSession {
    const at = new Date(s.createdAt).toISOString();
    return { id: s.id, accountId: s.accountId, type: 'EMAIL_OTP', nickname: 'user@example.com', createdAt: at, updatedAt: at, expiresAt: new Date(s.expiresAt).toISOString() };
  }

  /** Another device of the user logs in (its session is not this browser's). */
  elsewhere(accountId: string, publicKeyHex: string): void {
    this.create(accountId, publicKeyHex, 'elsewhere', -1);
  }

  /** Another device signs out this browser's session (or any other). */
  endElsewhere(s: ServiceSession): void {
    if (this.active(s)) s.ended = { by: 'elsewhere', at: this.clock.now };
  }

  private signerOk(accountId: string, publicKeyHex: string): boolean {
    return [...this.sessions.values()].some((s) => s.accountId === accountId && s.publicKeyHex === publicKeyHex && this.active(s));
  }

  private hold<T>(p: Omit<Pending, 'resolve' | 'reject'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = Object.assign(p, { resolve: resolve as (v: unknown) => void, reject });
      if (p.signal?.aborted) return reject(p.signal.reason);
      p.signal?.addEventListener('abort', () => {
        // A request being signed or on the wire is never aborted; one answered already (a prompt
        // declined or timed out) is no longer waiting (splice(-1) would drop another request).
        const at = this.pending.indexOf(entry);
        if (entry.stage !== 'prompt' || at < 0) return;
        this.pending.splice(at, 1);
        reject(p.signal?.reason);
      });
      this.pending.push(entry);
      if (p.stage === 'signing') void this.sign(entry);
    });
  }

  /** An approved signature: the signer is resolved now (after the prompt), then the leg is sent. */
  private async sign(p: Pending): Promise<void> {
    let key: string;
    try {
      const signer = typeof p.signer === 'function' ? await p.signer() : p.signer!;
      key = signer.publicKeyHex;
    } catch (error) {
      if (this.pending.includes(p)) this.pending.splice(this.pending.indexOf(p), 1);
      this.lostEnd(p);
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
      return p.reject(error);
    }
    if (!this.pending.includes(p)) return; // its tab closed meanwhile
    if (p.signal?.aborted) {
      this.pending.splice(this.pending.indexOf(p), 1);
      this.lostEnd(p);
      return p.reject(p.signal.reason);
    }
    p.signedBy = key;
    this.onSend?.(p, key);
    p.stage = 'wire';
    if (p.kind === 'refresh') this.sent(p.refreshOf!);
    this.signedSent.push({ tab: p.tab, kind: p.kind, key, at: this.step });
    if (p.kind === 'end') this.endsSent.push((p.sent = { tab: p.tab, sessionId: p.endOf!, logout: p.logout, seq: ++this.events }));
  }

  /** Every DELETE that left the browser, in order (S14). */
  readonly endsSent: EndSent[] = [];
  private events = 0;

  /** When storage refused a write, in the order of `endsSent` (S14). */
  readonly refusedWrites: number[] = [];
  writeRefused(): void {
    this.refusedWrites.push(++this.events);
  }

  private answered(p: Pending, outcome: NonNullable<EndSent['answer']>['outcome']): void {
    if (p.sent) p.sent.answer = { seq: ++this.events, outcome };
  }

  /** Called as an answer reaches tab `tab` (its Date header tells the tab the server's time). */
  onAnswer?: (tab: number) => void;

  /** Called as each signed request leaves (the model checks S6 there). */
  onSend?: (p: Pending, key: string) => void;

  /** Every signature that left the browser: which key, when (for the logout invariants). */
  readonly signedSent: Array<{ tab: number; kind: string; key: string; at: number }> = [];

  /** A login's verify: the session exists once processed. */
  login(tab: number, accountId: string, key: SessionKey, startedAt: number): Promise<AuthSession & { _s: ServiceSession }> {
    return this.hold({ tab, kind: 'login', stage: 'wire', process: () => {
      const s = this.create(accountId, key.publicKeyHex, 'login', tab);
      s.startedAt = startedAt;
      return { ...this.toAuthSession(s), _s: s };
    } });
  }

  /** A signed action of the app (e.g. an account update): accepted when signed by an active session of the account. */
  readonly accepted: Array<{ account: string; key: string; at: number }> = [];

  action(tab: number, account: string, signer: () => Promise<{ publicKeyHex: string }>, signal: AbortSignal, startedAt: number, startNonce: string | undefined): Promise<unknown> {
    const p: Omit<Pending, 'resolve' | 'reject'> = {
      startNonce,
      tab,
      kind: 'action',
      stage: 'prompt',
      signer: signer as SessionSigner,
      signal,
      account,
      startedAt,
      process: () => {
        if (!this.signerOk(account, p.signedBy!)) throw new WalletError('WALLET_SIGNATURE_INVALID', 'no active session has this key', { status: 401 });
        this.accepted.push({ account, key: p.signedBy!, at: this.step });
        return { ok: true };
      },
    };
    return this.hold(p);
  }

  forTab(tab: number): SessionService {
    return {
      list: (accountId) => this.hold({ tab, kind: 'list', stage: 'wire', process: () => [...this.sessions.values()].filter((s) => s.accountId === accountId && this.active(s)).map((s) => this.toAuthSession(s)) }),
      end: (sessionId, signer, options?: SigningOptions) => {
        const p: Omit<Pending, 'resolve' | 'reject'> = { tab, kind: 'end', stage: options?.approved ? 'signing' : 'prompt', signer, endOf: sessionId, approved: options?.approved === true, logout: logoutCall.getStore(), account: this.sessions.get(sessionId)?.accountId ?? '', startedAt: this.step, ...(options?.signingSignal && { signal: options.signingSignal }), process: () => {
          const s = this.sessions.get(sessionId);
          // Not active (unknown, expired, ended): 404, as the wire reference says (and the sandbox, on either leg).
          if (!s || !this.active(s)) throw new WalletError('SESSION_NOT_FOUND', 'not active', { status: 404 });
          if (!this.signerOk(s.accountId, p.signedBy!)) throw new WalletError('WALLET_SIGNATURE_INVALID', 'no active session has this key', { status: 401 });
          s.ended = { by: 'browser', at: this.clock.now, tab };
          // A refresh undone (its commit could not happen): refreshing that session again is no double refresh.
          if (s.refreshedFrom !== undefined && this.refreshState.get(s.refreshedFrom) === 'done') this.refreshState.delete(s.refreshedFrom);
          return true;
        } };
        return this.hold(p);
      },
      refresh: (sessionId, clientPublicKey, signer, options?: SigningOptions) => {
        const p: Omit<Pending, 'resolve' | 'reject'> = { tab, kind: 'refresh', stage: 'prompt', signer, refreshOf: sessionId, account: this.sessions.get(sessionId)?.accountId ?? '', startedAt: this.step, ...(options?.signingSignal && { signal: options.signingSignal }), process: () => {
          const old = this.sessions.get(sessionId);
          if (!old || !this.active(old) || old.publicKeyHex !== p.signedBy) throw new WalletError('WALLET_SIGNATURE_INVALID', 'not signed by an active session', { status: 401 });
          const s = this.create(old.accountId, clientPublicKey, 'refresh', tab);
          s.refreshedFrom = sessionId;
          return this.toAuthSession(s);
        } };
        return this.hold(p);
      },
    };
  }

  /** Answers the pending request at `index` (modulo the queue's length). */
  answer(index: number, how: Answer): void {
    if (this.pending.length === 0) return;
    const p = this.pending[index % this.pending.length]!;
    if (p.stage === 'signing') return;
    if (p.stage === 'prompt') {
      if (how === 'refuse' || how === 'timeout') {
        this.pending.splice(this.pending.indexOf(p), 1);
        this.lostEnd(p);
        if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
        p.reject(new WalletError('SIGNING_REFUSED', how === 'refuse' ? 'refused' : 'onBeforeSign did not answer in time'));
        return;
      }
      p.stage = 'signing'; // approved: the signer is resolved, then the signed leg is on its way
      void this.sign(p);
      return;
    }
    this.pending.splice(this.pending.indexOf(p), 1);
    if (how === 'forbid') {
      const target = p.endOf === undefined ? undefined : this.sessions.get(p.endOf);
      if (target) target.endRefused = true;
      // The undo of a refresh refused: that refresh is over (as when its undo is lost), the session it refreshed may be refreshed again.
      if (target && this.isStored) this.refreshesOver(target.tab, this.isStored, target.id);
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
      this.onAnswer?.(p.tab);
      this.forbidden++;
      this.answered(p, 'refused');
      return p.reject(this.forbidden % 2 === 0 ? new WalletError('LOGIN_REQUIRED' as never, 'Sign in first.', { status: 401 }) : new WalletError('FORBIDDEN' as never, 'refused by the app', { status: 403 }));
    }
    if (how === 'drop') {
      this.answered(p, 'dropped');
      this.lostEnd(p);
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
      return p.reject(new WalletError('NETWORK_ERROR', 'dropped before arriving'));
    }
    let result: unknown;
    try {
      result = p.process();
    } catch (error) {
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
      if (how !== 'lose') this.onAnswer?.(p.tab);
      this.answered(p, how === 'lose' ? 'lost' : error instanceof WalletError && error.status === 404 ? 'gone' : 'other');
      return how === 'lose' ? p.reject(new WalletError('TIMEOUT', 'answer lost')) : p.reject(error);
    }
    if (p.kind === 'refresh') {
      if (how === 'deliver') this.refreshState.set(p.refreshOf!, 'done');
      else this.refreshState.delete(p.refreshOf!);
    }
    const made = p.kind === 'login' ? (result as { _s: ServiceSession })._s : p.kind === 'refresh' ? this.sessions.get((result as AuthSession).id) : undefined;
    this.answered(p, how === 'lose' ? 'lost' : 'ended');
    if (how === 'lose') return p.reject(new WalletError('TIMEOUT', 'answer lost'));
    this.onAnswer?.(p.tab);
    if (made) made.delivered = true;
    p.resolve(result);
  }

  private lostEnd(p: Pending): void {
    const target = p.endOf === undefined ? undefined : this.sessions.get(p.endOf);
    if (target) target.endLost = true;
    // The undo of a refresh that never committed (its key could not be stored) lost: that refresh is
    // over (S4 judges refreshes at the same time); the session it refreshed may be refreshed again.
    if (target && this.isStored) this.refreshesOver(target.tab, this.isStored, target.id);
  }

  /** How many requests the app's proxy refused (`forbid`). */
  forbidden = 0;

  /** Whether a session is stored in the browser (set by the model's world). */
  isStored?: (sessionId: string) => boolean;

  private sent(sessionId: string): void {
    if (this.refreshState.has(sessionId)) this.doubleRefreshes.push(`${sessionId} refreshed again while ${this.refreshState.get(sessionId)}`);
    this.refreshState.set(sessionId, 'in-flight');
  }

  /**
   * S4 judges refreshes at the same time: a refresh of a closed tab that never committed (the session
   * it refreshed still stored, its own not) is over, whether its undo arrived or not (lost with the
   * tab); another tab may refresh that session again.
   */
  refreshesOver(tab: number, stored: (sessionId: string) => boolean, only?: string): void {
    for (const s of this.sessions.values()) {
      const from = s.refreshedFrom;
      if ((only === undefined || s.id === only) && s.tab === tab && from !== undefined && !stored(s.id) && stored(from) && this.refreshState.get(from) === 'done') this.refreshState.delete(from);
    }
  }

  /**
   * A closed tab's requests: those on the wire arrive (processed, answer lost) or not; prompts
   * vanish. Sessions its answers made that it had not stored (`held`) are orphaned: no one can end them.
   */
  closeTab(tab: number, arrived: boolean, held: ReadonlySet<string>): void {
    for (const s of this.sessions.values()) if (s.tab === tab && s.delivered && !held.has(s.id) && s.ended === undefined) s.orphaned = true;
    for (const p of this.pending.filter((x) => x.tab === tab)) {
      this.pending.splice(this.pending.indexOf(p), 1);
      if (p.stage !== 'wire' || !arrived) this.lostEnd(p);
      this.answered(p, arrived ? 'lost' : 'dropped');
      if (p.stage === 'wire' && arrived) {
        try {
          p.process();
        } catch {
          // refused by the service: nothing happened
        }
      }
      if (p.kind === 'refresh') this.refreshState.delete(p.refreshOf!);
    }
  }
}
