'use client';
/**
 * `useSession(selector?)`: the wallet's session snapshot through useSyncExternalStore, so every
 * component of a render sees the same snapshot (no tearing) and the server render, and hydration,
 * show the provider's server snapshot (`initializing`, or the hinted account): no mismatch. A
 * selector narrows what a component re-renders for: it re-renders only when the selected value
 * changes (`isEqual`, default Object.is).
 */
import { useMemo, useSyncExternalStore } from 'react';
import type { SessionSnapshot } from '../session/store.js';
import { useWalletContext } from './context.js';

/** One memoised selection: the same snapshot gives the same result; an equal result gives the previous one. */
function memo<T>(selector: (s: SessionSnapshot) => T, isEqual: (a: T, b: T) => boolean): (s: SessionSnapshot) => T {
  let last: { snap: SessionSnapshot; value: T } | undefined;
  return (snap) => {
    if (last && last.snap === snap) return last.value;
    const value = selector(snap);
    last = { snap, value: last && isEqual(last.value, value) ? last.value : value };
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
 */
export function useSession(): SessionSnapshot;
/** The part of the session `selector` picks; re-renders only when it changes (by `isEqual`, default Object.is). */
export function useSession<T>(selector: (snapshot: SessionSnapshot) => T, isEqual?: (a: T, b: T) => boolean): T;
export function useSession<T>(selector?: (snapshot: SessionSnapshot) => T, isEqual: (a: T, b: T) => boolean = Object.is): T | SessionSnapshot {
  const { wallet, serverSnapshot } = useWalletContext('useSession');
  const pick = (selector ?? whole) as (s: SessionSnapshot) => T;
  const [client, server] = useMemo(() => {
    const onClient = memo(pick, isEqual);
    const onServer = memo(pick, isEqual);
    return [() => onClient(wallet.getSnapshot()), () => onServer(serverSnapshot)];
  }, [wallet, serverSnapshot, pick, isEqual]);
  return useSyncExternalStore<T>(wallet.subscribe, client, server);
}
