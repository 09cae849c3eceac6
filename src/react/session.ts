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
import { useRef, useSyncExternalStore } from 'react';
import type { SessionSnapshot } from '../session/store.js';
import { useWalletContext } from './context.js';

/** Object.is, or objects (arrays) with the same own keys holding Object.is values (one level): what an object selector returns. */
export function shallowEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || !a || !b) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && Object.is(a[k as keyof typeof a], b[k as keyof typeof b]));
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
  // The last selection, kept across renders: the same snapshot and selector give the same value; a
  // new selector function (an inline one) or snapshot gives the previous value while it is equal.
  const cache = useRef<{ snap: SessionSnapshot; pick: unknown; value: T } | null>(null);
  const read = (snap: SessionSnapshot): T => {
    const last = cache.current;
    if (last && last.snap === snap && last.pick === pick) return last.value;
    const value = pick(snap);
    cache.current = { snap, pick, value: last && isEqual(last.value, value) ? last.value : value };
    return cache.current.value;
  };
  // While the wallet initializes, the server's snapshot (it may name the hinted account).
  return useSyncExternalStore<T>(wallet.subscribe, () => read(wallet.getSnapshot().status === 'initializing' ? serverSnapshot : wallet.getSnapshot()), () => read(serverSnapshot));
}

/** Signed in: `active`, `expiring` or `refreshing` (a refresh keeps the user signed in). */
export const isSignedIn = (snapshot: SessionSnapshot): boolean => snapshot.session !== null; // exactly those three statuses carry a session

/** Whether someone is signed in (see {@link isSignedIn}): false while initializing and signed out. Re-renders only when it changes. */
export function useIsSignedIn(): boolean {
  return useSession(isSignedIn);
}
