/** Lazy chunk: the rarer session changes (src/session/changes.ts); the session manager loads them before the first login commit, refresh, sign-out of other devices or judged refusal. */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../session/changes.js';
