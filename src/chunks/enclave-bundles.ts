/** Lazy chunk: the enclave-bundle crypto (src/crypto/enclave.ts: verify, seal, open, HPKE) behind the public entry's async functions; src/enclave-bundles.ts loads it at the first call of one. */
// Every module in src/chunks/ imports the package entry first (why: src/load-on-first-use.ts).
import '../index.js';

export * from '../crypto/enclave.js';
