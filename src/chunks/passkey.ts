/** Lazy chunk: the passkey flow (src/flows/passkey.ts, @simplewebauthn/browser); wallet.ts loads it at the first passkey call. */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../flows/passkey.js';
