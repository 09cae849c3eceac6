/** Lazy chunk: the one-time-code login flow (src/flows/otp.ts); wallet.ts loads it at the first OTP call. */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../flows/otp.js';
