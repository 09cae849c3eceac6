/**
 * The page coming back: `visibilitychange` to visible, and `online`. Timers are throttled or
 * frozen in background tabs and during sleep, so the manager looks again at these moments.
 * Degrades to nothing outside a browser.
 */

type Host = { addEventListener?: (type: string, f: () => void) => void; removeEventListener?: (type: string, f: () => void) => void };

/** Calls `wake` when the page becomes visible or the network returns; returns the detacher. */
export function onPageWake(wake: () => void): () => void {
  const doc = (globalThis as { document?: Host & { visibilityState?: string } }).document;
  const handler = (): void => {
    if (doc?.visibilityState === 'hidden') return;
    wake();
  };
  const detach: Array<() => void> = [];
  for (const [host, type] of [[doc, 'visibilitychange'], [globalThis as Host, 'online']] as const) {
    if (typeof host?.addEventListener !== 'function') continue;
    host.addEventListener(type, handler);
    detach.push(() => host.removeEventListener?.(type, handler));
  }
  return () => {
    for (const d of detach.splice(0)) d();
  };
}
