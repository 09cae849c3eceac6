'use client';
/**
 * `useSession(selector?)`: the wallet's session snapshot through useSyncExternalStore, so every
 * component of a render sees the same snapshot (no tearing) and the server render, and hydration,
 * show the provider's server snapshot (`initializing`, or the hinted account): no mismatch. Until
 * the wallet's `restore()` settles the client shows that server snapshot too, so the hinted account
 * stays on screen from the server's HTML to the restored session. A selector narrows what a
 * component re-renders for: it re-renders only when the selected value changes (`isEqual`, default
 * shallow: the same value, or objects/arrays with the same keys holding the same values), and an
 * inline selector (a new function every render) gives the previous value while it is equal.
 */
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { SessionSnapshot } from '../session/store.js';
import { useWalletContext } from './context.js';

/** Object.is, or the same own keys with Object.is values (one level): what an object selector returns. */
export function shallowEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * One memoised selection: the same snapshot gives the same result; an equal result gives the
 * previous one (this memo's, else the value last committed, so a new selector function does not
 * make a new value).
 */
function memo<T>(selector: (s: SessionSnapshot) => T, isEqual: (a: T, b: T) => boolean, committed: { current: { value: T } | null }): (s: SessionSnapshot) => T {
  let last: { snap: SessionSnapshot; value: T } | undefined;
  return (snap) => {
    if (last && last.snap === snap) return last.value;
    const value = selector(snap);
    const previous = last ?? committed.current;
    last = { snap, value: previous && isEqual(previous.value, value) ? previous.value : value };
    return last.value;
  };
}

const whole = (s: SessionSnapshot): SessionSnapshot => s;

/**
 * The session of the provider's wallet (its default account): `status` (`initializing`,
 * `signed-out` with `reason`, `active`, `expiring`, `refreshing`), `accountId`, `session`,
 * `expiresAt` on the service's clock, `origin`. With `selector`, only that part (re-renders only
 * when it changes). Outside a provider: WALLET_PROVIDER_MISSING.
 * @example
 * const status = useSession((s) => s.status);
 * const { status, accountId } = useSession((s) => ({ status: s.status, accountId: s.accountId }));
 */
export function useSession(): SessionSnapshot;
/** The part of the session `selector` picks; re-renders only when it changes (by `isEqual`, default shallow equality). */
export function useSession<T>(selector: (snapshot: SessionSnapshot) => T, isEqual?: (a: T, b: T) => boolean): T;
export function useSession<T>(selector?: (snapshot: SessionSnapshot) => T, isEqual: (a: T, b: T) => boolean = shallowEqual): T | SessionSnapshot {
  const { wallet, serverSnapshot } = useWalletContext('useSession');
  const pick = (selector ?? whole) as (s: SessionSnapshot) => T;
  const committed = useRef<{ value: T } | null>(null);
  const [client, server] = useMemo(() => {
    const onClient = memo(pick, isEqual, committed);
    const onServer = memo(pick, isEqual, committed);
    // While the wallet initializes, the server's snapshot (it may name the hinted account).
    return [() => onClient(wallet.getSnapshot().status === 'initializing' ? serverSnapshot : wallet.getSnapshot()), () => onServer(serverSnapshot)];
  }, [wallet, serverSnapshot, pick, isEqual]);
  const value = useSyncExternalStore<T>(wallet.subscribe, client, server);
  useEffect(() => void (committed.current = { value }));
  return value;
}
