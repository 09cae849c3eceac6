/**
 * The chunk behind the public entry's enclave-bundle functions (hpkeSeal, hpkeOpen,
 * verifySignedBundle, buildEncryptedOtpBundle, openExportBundle): src/crypto/index.ts loads it at
 * the first call of one of them. The code is crypto/enclave.ts; this module adds the import of the
 * package entry that every module loaded on first use has (src/load-on-first-use.ts).
 */
import './index.js';

export { buildEncryptedOtpBundle, hpkeOpen, hpkeSeal, openExportBundle, verifySignedBundle } from './crypto/enclave.js';
