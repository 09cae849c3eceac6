/** Lazy chunk: the OAuth login flow (src/flows/oauth.ts); wallet.ts loads it at the first OAuth call. */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../flows/oauth.js';
