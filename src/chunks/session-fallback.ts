/** Lazy chunk: the cross-tab fallback without Web Locks or BroadcastChannel (src/session/storage-lock.ts, invariant I7). */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../session/storage-lock.js';
