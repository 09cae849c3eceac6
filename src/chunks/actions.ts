/** Lazy chunk: the signed actions (src/actions/); wallet.ts loads them at the first call of one. */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../actions/index.js';
