// view.ts on its own: a tab's picture of the stored account states and the events it emits. For
// generated sequences of stored states (generations in any order, storage cleared, silent and local
// applies), the picture only moves forward (or follows a cleared storage down once) and the events
// are exactly those the diff of the two states implies: `expired`/`key-evicted` for each session
// removed by such a commit, then for a changed current session `logged-out` (with the reason the
// change and locality give), `refreshed` (a refresh that removed the previous one) or `session`.
// Plus the helpers that pick an account and a session for a call.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { accountFor, createView, currentOf, defaultAccountOf, noSessionError, pickSession } from '../../src/session/view.js';
import { createEmitter } from '../../src/session/emitter.js';
import type { AccountState, Change } from '../../src/session/state.js';
import type { LogoutReason, Session, SessionEvents } from '../../src/session/types.js';
import { isWalletError, WalletError } from '../../src/errors.js';

const CHANGES: Change[] = ['login', 'refresh', 'logout', 'expired', 'revoked', 'evicted'];
const EVENTS = ['session', 'expiring', 'expired', 'refreshed', 'refresh-failed', 'logged-out', 'key-evicted'] as const;

const session = (id: string, account = 'A', expiresMs = 3_600_000, credentialId = `c-${id}`): Session => ({
  id, accountId: account, credentialId, credentialType: 'EMAIL_OTP', publicKeyHex: `02${'1'.repeat(64)}`,
  createdAt: new Date(0).toISOString(), expiresAt: new Date(expiresMs).toISOString(),
});
const POOL = ['s0', 's1', 's2', 's3'].map((id) => session(id));

function setup() {
  const events = createEmitter<SessionEvents>();
  const seen: [string, unknown][] = [];
  for (const e of EVENTS) events.on(e, (p) => seen.push([e, p]));
  const changes: [string, boolean][] = [];
  const view = createView(events, (a, local) => changes.push([a, local]));
  return { view, seen, changes };
}

const empty = (accountId: string): AccountState => ({ accountId, generation: 0, current: null, sessions: [], change: 'logout' });

describe('view.apply: the events of the difference', () => {
  it('moves forward only and emits exactly what the diff implies (generated sequences)', () => {
    const step = fc.record({
      account: fc.constantFrom('A', 'B'),
      generation: fc.integer({ min: 0, max: 6 }),
      sessions: fc.subarray(POOL),
      pickCurrent: fc.nat(4),
      change: fc.constantFrom(...CHANGES),
      local: fc.boolean(),
      silent: fc.boolean(),
      absent: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        const { view, seen, changes } = setup();
        const model = new Map<string, AccountState>();
        const ended = new Map<string, LogoutReason>();
        for (const st of steps) {
          const sessions = st.sessions.map((s) => ({ ...s, accountId: st.account }));
          const current = sessions[st.pickCurrent]?.id ?? null;
          const state: AccountState = { accountId: st.account, generation: st.generation, current, sessions, change: st.change };
          seen.length = 0;
          changes.length = 0;
          const before = model.get(st.account) ?? empty(st.account);
          const cleared = st.absent && before.sessions.length > 0;
          const moves = st.generation > before.generation || cleared;
          const after = cleared ? empty(st.account) : state;
          const expected: [string, unknown][] = [];
          if (moves && !st.silent) {
            const removed = before.sessions.filter((s) => !after.sessions.some((t) => t.id === s.id));
            if (after.change === 'expired') for (const s of removed) expected.push(['expired', s]);
            if (after.change === 'evicted') for (const s of removed) expected.push(['key-evicted', { session: s }]);
            const was = before.sessions.find((s) => s.id === before.current) ?? null;
            const now = after.sessions.find((s) => s.id === after.current) ?? null;
            if (was?.id !== now?.id) {
              if (now === null) {
                const reason: LogoutReason | undefined =
                  after.change === 'evicted' ? undefined : after.change === 'logout' ? (st.local ? 'user' : 'other-tab') : after.change === 'expired' || after.change === 'revoked' ? after.change : 'other-tab';
                if (reason !== undefined) {
                  ended.set(st.account, reason);
                  expected.push(['logged-out', { accountId: st.account, reason }]);
                }
              } else {
                ended.delete(st.account);
                if (after.change === 'refresh' && was !== null && !after.sessions.some((s) => s.id === was.id)) expected.push(['refreshed', { previous: was, session: now }]);
                else expected.push(['session', now]);
              }
            }
          }
          if (moves) model.set(st.account, after);
          expect(view.apply(state, { local: st.local, silent: st.silent, absent: st.absent })).toBe(moves);
          expect(seen).toEqual(expected);
          expect(changes).toEqual(moves ? [[st.account, st.local]] : []);
          for (const a of ['A', 'B']) {
            expect(view.get(a)).toEqual(model.get(a) ?? empty(a));
            expect(view.ended(a)).toBe(ended.get(a));
          }
          expect(view.accounts().map((s) => s.accountId).sort()).toEqual([...model.keys()].sort());
        }
      }),
      { numRuns: 600 },
    );
  });

  it('examples: an unknown account is empty at generation 0; an older or equal generation is dropped', () => {
    const { view, seen } = setup();
    expect(view.get('X')).toStrictEqual({ accountId: 'X', generation: 0, current: null, sessions: [], change: 'logout' });
    expect(view.accounts()).toEqual([]);
    expect(view.apply({ accountId: 'X', generation: 2, current: 's0', sessions: [POOL[0]!], change: 'login' })).toBe(true);
    expect(seen).toEqual([['session', POOL[0]]]);
    expect(view.apply({ accountId: 'X', generation: 2, current: null, sessions: [], change: 'logout' })).toBe(false);
    expect(view.apply({ accountId: 'X', generation: 1, current: null, sessions: [], change: 'logout' })).toBe(false);
    expect(view.get('X').current).toBe('s0');
    // Storage cleared: followed down once, with the logout event; then an absent empty record again is nothing.
    expect(view.apply(empty('X'), { absent: true })).toBe(true);
    expect(seen.at(-1)).toEqual(['logged-out', { accountId: 'X', reason: 'other-tab' }]);
    expect(view.apply(empty('X'), { absent: true })).toBe(false);
    expect(view.ended('X')).toBe('other-tab');
  });

  it('examples: refresh, expiry, eviction, revocation, local logout', () => {
    const { view, seen } = setup();
    const [a, b, c] = POOL as [Session, Session, Session];
    view.apply({ accountId: 'A', generation: 1, current: a.id, sessions: [a, c], change: 'login' });
    view.apply({ accountId: 'A', generation: 2, current: b.id, sessions: [b, c], change: 'refresh' });
    expect(seen.slice(1)).toEqual([['refreshed', { previous: a, session: b }]]);
    view.apply({ accountId: 'A', generation: 3, current: null, sessions: [], change: 'evicted' });
    expect(seen.slice(2)).toEqual([['key-evicted', { session: b }], ['key-evicted', { session: c }]]);
    expect(view.ended('A')).toBeUndefined();
    view.apply({ accountId: 'A', generation: 4, current: a.id, sessions: [a], change: 'login' });
    view.apply({ accountId: 'A', generation: 5, current: null, sessions: [], change: 'expired' });
    expect(seen.slice(5)).toEqual([['expired', a], ['logged-out', { accountId: 'A', reason: 'expired' }]]);
    view.apply({ accountId: 'A', generation: 6, current: a.id, sessions: [a], change: 'login' });
    expect(view.ended('A')).toBeUndefined();
    view.apply({ accountId: 'A', generation: 7, current: null, sessions: [], change: 'revoked' });
    expect(view.ended('A')).toBe('revoked');
    view.apply({ accountId: 'A', generation: 8, current: a.id, sessions: [a], change: 'login' }, { silent: true });
    view.apply({ accountId: 'A', generation: 9, current: null, sessions: [], change: 'logout' }, { local: true });
    expect(seen.at(-1)).toEqual(['logged-out', { accountId: 'A', reason: 'user' }]);
  });
});

describe('view helpers: which account, which session, which error', () => {
  function viewWith(states: AccountState[]) {
    const { view } = setup();
    for (const s of states) view.apply(s, { silent: true });
    return view;
  }
  const code = (f: () => unknown): string | undefined => {
    try {
      f();
      return undefined;
    } catch (e) {
      return isWalletError(e) ? e.code : 'not a WalletError';
    }
  };

  it('noSessionError: the code says why the last session ended', () => {
    const { view } = setup();
    const a = POOL[0]!;
    expect(noSessionError(view, 'A').code).toBe('NOT_LOGGED_IN');
    for (const [change, expected] of [['expired', 'SESSION_EXPIRED'], ['revoked', 'SESSION_REVOKED'], ['logout', 'NOT_LOGGED_IN'], ['login', 'NOT_LOGGED_IN']] as const) {
      const g = view.get('A').generation;
      view.apply({ accountId: 'A', generation: g + 1, current: a.id, sessions: [a], change: 'login' });
      view.apply({ accountId: 'A', generation: g + 2, current: null, sessions: [], change });
      const e = noSessionError(view, 'A');
      expect(e).toBeInstanceOf(WalletError);
      expect(e.code).toBe(expected);
    }
  });

  it('defaultAccountOf / accountFor', () => {
    const a = session('a', 'A');
    const b = session('b', 'B');
    const view = viewWith([
      { accountId: 'N', generation: 1, current: null, sessions: [], change: 'logout' },
      { accountId: 'A', generation: 1, current: 'a', sessions: [a], change: 'login' },
      { accountId: 'B', generation: 1, current: 'b', sessions: [b], change: 'login' },
    ]);
    expect(defaultAccountOf(view, 'B')).toBe('B');
    expect(defaultAccountOf(view, 'N')).toBe('A');
    expect(defaultAccountOf(view, 'unknown')).toBe('A');
    expect(defaultAccountOf(view, undefined)).toBe('A');
    expect(defaultAccountOf(viewWith([{ accountId: 'N', generation: 1, current: null, sessions: [], change: 'logout' }]), 'N')).toBeUndefined();
    expect(accountFor(view, 'B', undefined)).toBe('B');
    expect(accountFor(view, 'B', 'N')).toBe('N');
    expect(accountFor(view, undefined, 'Z')).toBe('Z');
    expect(code(() => accountFor(view, 'B', ''))).toBe('INVALID_ARGUMENT');
    expect(code(() => accountFor(view, 'B', 5 as unknown as string))).toBe('INVALID_ARGUMENT');
    expect(code(() => accountFor(viewWith([]), undefined, undefined))).toBe('NOT_LOGGED_IN');
    expect(code(() => accountFor(viewWith([]), 'A', undefined))).toBe('NOT_LOGGED_IN');
  });

  it('pickSession: the current one, or the best unexpired one of another credential (generated)', () => {
    const noSession = (id: string) => new WalletError('NOT_LOGGED_IN', id);
    fc.assert(
      fc.property(
        fc.array(fc.record({ cred: fc.constantFrom('c1', 'c2', 'c3'), exp: fc.integer({ min: 0, max: 10 }) }), { maxLength: 5 }),
        fc.nat(5),
        fc.integer({ min: 0, max: 10 }),
        fc.option(fc.constantFrom('c1', 'c2', '', 7), { nil: undefined }),
        (specs, curIndex, now, exclude) => {
          const sessions = specs.map((x, i) => session(`s${i}`, 'A', x.exp, x.cred));
          const cur = sessions[curIndex] ?? null;
          const state: AccountState = { accountId: 'A', generation: 1, current: cur?.id ?? null, sessions, change: 'login' };
          const opts = exclude === undefined ? (curIndex % 2 === 0 ? undefined : {}) : { excludeCredentialId: exclude as string };
          let expected: string;
          if (exclude === undefined) expected = cur ? `ok ${cur.id}` : 'NOT_LOGGED_IN';
          else if (exclude === '' || typeof exclude !== 'string') expected = 'INVALID_ARGUMENT';
          else {
            const ok = sessions.filter((s) => s.credentialId !== exclude && now < Date.parse(s.expiresAt));
            const best = ok.find((s) => s === cur) ?? ok.reduce<Session | undefined>((m, s) => (m === undefined || Date.parse(s.expiresAt) > Date.parse(m.expiresAt) ? s : m), undefined);
            expected = best ? `ok ${Date.parse(best.expiresAt)} ${best === cur}` : sessions.length === 0 ? 'NOT_LOGGED_IN' : 'OTHER_CREDENTIAL_SESSION_REQUIRED';
          }
          let got: string;
          try {
            const s = pickSession(state, opts, now, noSession);
            got = exclude === undefined ? `ok ${s.id}` : `ok ${Date.parse(s.expiresAt)} ${s === cur}`;
            if (exclude !== undefined) expect(s.credentialId).not.toBe(exclude);
          } catch (e) {
            got = isWalletError(e) ? e.code : 'not a WalletError';
          }
          expect(got).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('pickSession examples: the current first even when others last longer; then the longest-lasting', () => {
    const noSession = () => new WalletError('NOT_LOGGED_IN');
    const cur = session('cur', 'A', 100, 'c1');
    const long = session('long', 'A', 900, 'c1');
    const mid = session('mid', 'A', 500, 'c1');
    const other = session('other', 'A', 950, 'c2');
    const state: AccountState = { accountId: 'A', generation: 1, current: 'cur', sessions: [mid, long, cur, other], change: 'login' };
    expect(pickSession(state, { excludeCredentialId: 'c2' }, 0, noSession)).toBe(cur);
    expect(pickSession({ ...state, current: null }, { excludeCredentialId: 'c2' }, 0, noSession)).toBe(long);
    expect(pickSession({ ...state, current: null, sessions: [long, mid] }, { excludeCredentialId: 'c2' }, 0, noSession)).toBe(long);
    expect(pickSession(state, { excludeCredentialId: 'c2' }, 200, noSession)).toBe(long);
    expect(pickSession(state, { excludeCredentialId: 'c1' }, 0, noSession)).toBe(other);
    expect(pickSession(state, undefined, 0, noSession)).toBe(cur);
    expect(code(() => pickSession(state, { excludeCredentialId: 'c1' }, 950, noSession))).toBe('OTHER_CREDENTIAL_SESSION_REQUIRED');
    expect(code(() => pickSession({ ...state, sessions: [] }, { excludeCredentialId: 'c1' }, 0, noSession))).toBe('NOT_LOGGED_IN');
    expect(currentOf(state)).toBe(cur);
    expect(currentOf({ ...state, current: 'gone' })).toBeNull();
  });
});
