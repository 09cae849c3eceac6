/**
 * `embedded-wallet-signer/testing`: test helpers for apps that bundle the wallet. Node only.
 *
 * - Playwright: {@link withWalletSandbox} adds fixtures to your `test` (a sandbox per worker, the
 *   login code, the sandbox clock, faults, a virtual passkey in Chromium). `@playwright/test` is an
 *   optional peer dependency (only its types are imported here).
 * - Vitest (or any runner): {@link useTestSandbox} / {@link startTestSandbox}, and a
 *   {@link SandboxClient} for customers, funding, OIDC tokens, the clock and faults.
 * - The contract: {@link undefinedFields} checks an answer against the shapes the spec and the wire
 *   reference define (what the sandbox's service profile sends).
 *
 * Needs the sandbox's optional peers (`@hpke/core`, `@simplewebauthn/server`, `@scure/bip39`) to
 * start a sandbox.
 */
export { findEmbeddedWallet, SandboxClient, SANDBOX_OTP, type SandboxTarget, type TestCustomer } from './client.js';
export { startTestSandbox, useTestSandbox, type SuiteHooks, type TestSandbox } from './start.js';
export {
  addVirtualPasskey,
  withWalletSandbox,
  type SandboxClock,
  type SandboxFaults,
  type VirtualPasskey,
  type WalletSandboxOptions,
  type WalletTestFixtures,
  type WalletWorkerFixtures,
} from './playwright.js';
export { undefinedFields, missingFields, type ShapeName } from '../sandbox/contract.js';
export type { ArmedFault, FaultKind, FaultSpec } from '../sandbox/faults.js';
export { startSandbox, type RunningSandbox, type SandboxOptions } from '../sandbox/server.js';
export type { LogSink } from '../sandbox/log.js';
export type { SandboxFaultControl } from '../sandbox/faults.js';
export type { SandboxProfile } from '../sandbox/profile.js';
export type { QuoteExecuteMode } from '../sandbox/quote-execute.js';
