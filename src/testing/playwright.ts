/**
 * Playwright fixtures for an app that bundles the wallet: a sandbox per worker (or the run's
 * sandbox, given a target), the login code, the sandbox clock, faults, and a virtual passkey in
 * Chromium (CDP WebAuthn). `@playwright/test` is an optional peer dependency: this module imports
 * only its types and extends the `test` the app passes in.
 *
 * ```ts
 * import { test as base, expect } from '@playwright/test';
 * import { withWalletSandbox } from 'embedded-wallet-signer/testing';
 * export const test = withWalletSandbox(base);
 * test('logs in by email code', async ({ page, walletSandbox, otpCode }) => { … });
 * ```
 */
import type { BrowserContext, Page, PlaywrightTestArgs, PlaywrightWorkerArgs, TestType } from '@playwright/test';
import type { SandboxOptions } from '../sandbox/server.js';
import type { ArmedFault, FaultSpec } from '../sandbox/faults.js';
import { SANDBOX_OTP, type SandboxTarget } from './client.js';
import { startTestSandbox, type TestSandbox } from './start.js';

/** How each worker gets its sandbox: started with these options, or `target` (a function, read in the worker) reached over HTTP. */
export interface WalletSandboxOptions extends SandboxOptions {
  /** A running sandbox to use instead of starting one (read in the worker; undefined: start one). */
  target?: () => SandboxTarget | undefined;
}

/** The sandbox clock of the test's sandbox (shared by the tests of that sandbox). */
export interface SandboxClock {
  /** Moves it forward; resolves with the new time (ISO 8601). */
  advance(seconds: number): Promise<string>;
  /** The sandbox time (ISO 8601). */
  now(): Promise<string>;
}

/** Faults of the test's sandbox; every fault left armed is cleared when the test ends. */
export interface SandboxFaults {
  /** Arms a fault (`POST /sandbox/faults`). */
  add(spec: FaultSpec): Promise<ArmedFault>;
  /** The armed faults with uses left. */
  list(): Promise<ArmedFault[]>;
  /** Disarms every fault. */
  clear(): Promise<void>;
}

/** A CDP virtual authenticator (Chromium only): internal, resident keys, user verified. */
export interface VirtualPasskey {
  /** CDP's id of the virtual authenticator. */
  readonly authenticatorId: string;
  /** The credentials it holds (CDP `WebAuthn.getCredentials`). */
  credentials(): Promise<{ credentialId: string; isResidentCredential: boolean; rpId?: string; signCount: number }[]>;
  /** Whether the next ceremonies verify the user (a declined biometric when false). */
  setUserVerified(verified: boolean): Promise<void>;
  /** Removes the authenticator. */
  remove(): Promise<void>;
}

/** The per-test fixtures {@link withWalletSandbox} adds. */
export interface WalletTestFixtures {
  /** The sandbox's embedded-wallet login code (`000000`). */
  otpCode: string;
  /** The clock of the worker's sandbox. */
  sandboxClock: SandboxClock;
  /** Faults of the worker's sandbox, cleared when the test ends. */
  faults: SandboxFaults;
  /** Installs a virtual passkey authenticator on the test's page (Chromium only; other engines throw). */
  virtualPasskey: { install(): Promise<VirtualPasskey> };
}

/** The per-worker fixtures {@link withWalletSandbox} adds. */
export interface WalletWorkerFixtures {
  /** How the worker's sandbox is made (an option: `test.use({ walletSandboxOptions })` or the config's `use`). */
  walletSandboxOptions: WalletSandboxOptions;
  /** The worker's sandbox: `url`, `enclavePublicKey`, `client` (customers, funding, tokens, clock, faults). */
  walletSandbox: TestSandbox;
}

/**
 * Adds a CDP virtual authenticator to `page`'s browser (Chromium). Throws in other engines, which
 * have no CDP WebAuthn domain.
 */
export async function addVirtualPasskey(context: BrowserContext, page: Page): Promise<VirtualPasskey> {
  const name = context.browser()?.browserType().name();
  if (name !== undefined && name !== 'chromium') throw new Error(`a virtual passkey needs Chromium (CDP WebAuthn); this browser is ${name}`);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    authenticatorId,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    setUserVerified: async (isUserVerified) => {
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });
    },
    remove: async () => {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    },
  };
}

/**
 * `base` (Playwright's `test`, or one the app extended) with the wallet fixtures. `defaults` are the
 * worker's sandbox options unless the config or `test.use` sets `walletSandboxOptions`.
 */
export function withWalletSandbox<T extends PlaywrightTestArgs, W extends PlaywrightWorkerArgs>(
  base: TestType<T, W>,
  defaults: WalletSandboxOptions = {},
): TestType<T & WalletTestFixtures, W & WalletWorkerFixtures> {
  // The fixtures object is typed by Playwright's own `extend` overloads, which a generic `base`
  // cannot resolve; the shape is checked by WalletTestFixtures / WalletWorkerFixtures above.
  const extend = base.extend as unknown as (fixtures: Record<string, unknown>) => TestType<T & WalletTestFixtures, W & WalletWorkerFixtures>;
  return extend({
    walletSandboxOptions: [defaults, { scope: 'worker', option: true }],
    walletSandbox: [
      async ({ walletSandboxOptions }: { walletSandboxOptions: WalletSandboxOptions }, use: (s: TestSandbox) => Promise<void>) => {
        const { target, ...options } = walletSandboxOptions;
        const reached = target?.();
        const sandbox = await startTestSandbox(reached !== undefined ? { target: reached } : options);
        try {
          await use(sandbox);
        } finally {
          await sandbox.close();
        }
      },
      { scope: 'worker' },
    ],
    otpCode: async ({}, use: (code: string) => Promise<void>) => use(SANDBOX_OTP),
    sandboxClock: async ({ walletSandbox }: { walletSandbox: TestSandbox }, use: (clock: SandboxClock) => Promise<void>) =>
      use({ advance: (seconds) => walletSandbox.client.advanceClock(seconds), now: () => walletSandbox.client.now() }),
    faults: async ({ walletSandbox }: { walletSandbox: TestSandbox }, use: (faults: SandboxFaults) => Promise<void>) => {
      const { client } = walletSandbox;
      try {
        await use({ add: (spec) => client.addFault(spec), list: () => client.listFaults(), clear: () => client.clearFaults() });
      } finally {
        await client.clearFaults();
      }
    },
    virtualPasskey: async ({ context, page }: { context: BrowserContext; page: Page }, use: (v: { install(): Promise<VirtualPasskey> }) => Promise<void>) =>
      use({ install: () => addVirtualPasskey(context, page) }),
  });
}
