/** Lazy chunk: the conversion of version 0.1 storage (src/session/migrate.ts); loaded only when such records are found. */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../session/migrate.js';
