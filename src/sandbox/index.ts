/**
 * `embedded-wallet-signer/sandbox`: a local service that speaks the embedded-wallet HTTP contract
 * of the payments service (wire reference + spec) and verifies every stamp, bundle, token and
 * assertion for real. Node only.
 *
 * ```ts
 * import { startSandbox } from 'embedded-wallet-signer/sandbox';
 * const sandbox = await startSandbox({ port: 0, log: false });
 * // sandbox.url = http://127.0.0.1:<port>/2025-10-13; Basic auth sandbox-client:sandbox-secret
 * await sandbox.close();
 * ```
 * Behaviour and decisions: src/sandbox/README.md.
 */
export { startSandbox, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_ORIGIN, DEFAULT_RP_ID } from './server.js';
export type { SandboxOptions, RunningSandbox } from './server.js';
export { PROFILE_ENV, SANDBOX_PROFILES, type SandboxProfile } from './profile.js';
export { QUOTE_EXECUTE_ENV, QUOTE_EXECUTE_MODES, type QuoteExecuteMode } from './quote-execute.js';
export type { ArmedFault, FaultKind, FaultSpec, SandboxFaultControl } from './faults.js';
export type { LogSink } from './log.js';
export { API_VERSION } from './context.js';
export { SANDBOX_VALID_SIGNATURE, SIGNATURE_HEADER, REQUEST_ID_HEADER } from './stamp.js';
export { SANDBOX_OTP_CODE } from './domain/otp.js';
export { DEFAULT_OAUTH_CLIENT_ID } from './domain/oidc.js';
export { CONTACT_VERIFICATION_CODE } from './routes/contact-verification.js';
