/**
 * The chunk behind the public entry's enclave-bundle functions (hpkeSeal, hpkeOpen,
 * verifySignedBundle, buildEncryptedOtpBundle, openExportBundle): src/crypto/index.ts loads it at
 * the first call of one of them. The code is crypto/enclave.ts; this module only adds the import of
 * the session barrel that every module loaded on first use has (the flows and actions use it, the
 * session's own lazy chunks too): with it, every lazy chunk reaches the same startup code and a
 * bundler keeps that code in ONE shared startup chunk. Without it this chunk would reach only the
 * crypto part and split the shared chunk in two, each gzipped on its own (measured: 20.84 KB gz at
 * startup instead of 20.24). test/size/startup-chunks.test.ts checks the two chunks.
 */
import './session/index.js';

export { buildEncryptedOtpBundle, hpkeOpen, hpkeSeal, openExportBundle, verifySignedBundle } from './crypto/enclave.js';
