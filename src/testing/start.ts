/**
 * A sandbox for a test run: started in this process (a free port on 127.0.0.1, quiet) or an
 * existing one reached over HTTP, either way behind one {@link SandboxClient}.
 */
import { startSandbox, type SandboxOptions } from '../sandbox/server.js';
import { PROFILE_ENV, resolveProfile, type SandboxProfile } from '../sandbox/profile.js';
import { SandboxClient, type SandboxTarget } from './client.js';

/** The profile the kit starts its sandboxes in when neither the option nor `SANDBOX_PROFILE` names one. */
export const KIT_PROFILE: SandboxProfile = 'service';

/** A sandbox a test uses: its client, the enclave key to trust, and `close()` (a no-op for one it did not start). */
export interface TestSandbox {
  /** Calls on the sandbox: customers, funding, OIDC tokens, the clock, faults. */
  readonly client: SandboxClient;
  /** `{base_url}`. */
  readonly url: string;
  /** The enclave key: `createWallet({ trustedKeys: [enclavePublicKey] })`. */
  readonly enclavePublicKey: string;
  /** Stops a sandbox this process started; nothing for one reached over HTTP. */
  close(): Promise<void>;
}

/**
 * Starts a sandbox (options as `startSandbox`, default `{ port: 0, log: false }` and the `service`
 * profile), or, given `{ target }`, connects to a running one. Needs the sandbox's optional peers
 * when it starts one.
 *
 * Decided here (issue 34): the kit's sandbox answers in the `service` profile unless `profile` (or
 * the `SANDBOX_PROFILE` environment variable) says otherwise — what an integrator's app will meet
 * is the service, not the sandbox profile's explanations; `startSandbox` itself keeps `sandbox`.
 */
export async function startTestSandbox(options: SandboxOptions & { target?: SandboxTarget } = {}): Promise<TestSandbox> {
  const { target, ...sandboxOptions } = options;
  if (target !== undefined) {
    const client = new SandboxClient(target);
    return { client, url: client.url, enclavePublicKey: await client.enclavePublicKey(), close: async () => {} };
  }
  const fromEnv = process.env[PROFILE_ENV];
  const profile = sandboxOptions.profile ?? (fromEnv === undefined || fromEnv === '' ? KIT_PROFILE : resolveProfile(undefined));
  const sandbox = await startSandbox({ port: 0, log: false, ...sandboxOptions, profile });
  const client = new SandboxClient({ url: sandbox.url, ...(options.clientId !== undefined ? { clientId: options.clientId } : {}), ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}) });
  return { client, url: sandbox.url, enclavePublicKey: sandbox.enclavePublicKey, close: () => sandbox.close() };
}

/** The hooks of a test runner (Vitest's or Jest's `beforeAll` / `afterAll`). */
export interface SuiteHooks {
  /** Runs `fn` once before the suite's tests. */
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  /** Runs `fn` once after them. */
  afterAll(fn: () => Promise<void>): void;
}

/**
 * A sandbox for one test file (Vitest helper): started in `beforeAll`, closed in `afterAll`.
 * Pass the runner's hooks (the testing entry imports no test runner).
 *
 * ```ts
 * import { beforeAll, afterAll, it, expect } from 'vitest';
 * import { useTestSandbox } from 'embedded-wallet-signer/testing';
 * const sandbox = useTestSandbox({ beforeAll, afterAll });
 * it('logs in', async () => {
 *   const customer = await sandbox.client.createCustomer();
 *   // createWallet({ baseUrl: sandbox.url, trustedKeys: [sandbox.enclavePublicKey], … })
 * });
 * ```
 */
export function useTestSandbox(hooks: SuiteHooks, options: Parameters<typeof startTestSandbox>[0] = {}): TestSandbox {
  let started: TestSandbox | undefined;
  const get = (): TestSandbox => {
    if (started === undefined) throw new Error('the test sandbox is not started yet: use it inside tests (after beforeAll)');
    return started;
  };
  hooks.beforeAll(async () => {
    started = await startTestSandbox(options);
  }, 30_000);
  hooks.afterAll(async () => {
    await started?.close();
  });
  return {
    get client() {
      return get().client;
    },
    get url() {
      return get().url;
    },
    get enclavePublicKey() {
      return get().enclavePublicKey;
    },
    close: () => get().close(),
  };
}
