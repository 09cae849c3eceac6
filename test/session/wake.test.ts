// A tab whose timers were throttled (background, sleep) catches up when the page becomes visible
// again or comes back online: the missed refresh runs then. The local clock is the manager's `now`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/transport/index.js';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { createSessionManager } from '../../src/session/manager.js';
import type { WalletContext } from '../../src/session/context.js';
import { startOtpLogin } from '../../src/flows/otp.js';
import { BASIC, useTestSandbox } from '../flows/helpers/sandbox.js';
import { flush } from '../helpers/wait-for.js';

const env = useTestSandbox();
afterEach(() => {
  vi.unstubAllGlobals();
});

function setup() {
  let skipped = 0;
  const now = (): number => Date.now() + skipped;
  const client = createClient({ baseUrl: env.sandbox.url, headers: { Authorization: BASIC } });
  // Reads of the whole store are counted: a wake re-reads every account (syncAll) first.
  const reads = { n: 0 };
  const memory = createMemoryBackend();
  const backend = { ...memory, entries: () => (reads.n++, memory.entries()) };
  const keyStore = createKeyStore({ backend });
  const sessions = createSessionManager({ client, keyStore, now, crossTab: false });
  const ctx: WalletContext = { client, sessions, keyStore, trustedKeys: [env.sandbox.enclavePublicKey], passkey: {} };
  return { ctx, sessions, reads, sleep: (ms: number) => (skipped += ms) };
}

describe('catching up after timers were throttled', () => {
  for (const [host, type] of [
    ['document', 'visibilitychange'],
    ['window', 'online'],
  ] as const) {
    it(`refreshes on ${type} when the refresh point passed unnoticed`, async () => {
      const target = Object.assign(new EventTarget(), { visibilityState: 'visible' });
      if (host === 'document') vi.stubGlobal('document', target);
      else vi.stubGlobal('addEventListener', target.addEventListener.bind(target));
      const { accountId } = await env.admin.customer();
      const { ctx, sessions, sleep } = setup();
      await sessions.restore();
      const session = await (await startOtpLogin(ctx, { accountId })).verify('000000');
      const refreshed = new Promise<{ previous: { id: string } }>((resolve) => sessions.on('refreshed', resolve));
      sleep(11 * 60 * 1000); // the machine slept; no timer fired
      target.dispatchEvent(new Event(type));
      expect((await refreshed).previous.id).toBe(session.id);
      expect(sessions.current(accountId)?.id).not.toBe(session.id);
      sessions.dispose();
    });
  }

  it('a hidden page does not act on visibilitychange', async () => {
    const target = Object.assign(new EventTarget(), { visibilityState: 'hidden' });
    vi.stubGlobal('document', target);
    const { accountId } = await env.admin.customer();
    const { ctx, sessions, reads, sleep } = setup();
    await sessions.restore();
    const session = await (await startOtpLogin(ctx, { accountId })).verify('000000');
    let refreshed = false;
    sessions.on('refreshed', () => (refreshed = true));
    const before = reads.n;
    sleep(11 * 60 * 1000);
    target.dispatchEvent(new Event('visibilitychange'));
    // A wake would have read every account by now (in-memory storage: promises only); none was read.
    await flush();
    expect(reads.n).toBe(before);
    expect(refreshed).toBe(false);
    expect(sessions.current(accountId)?.id).toBe(session.id);
    sessions.dispose();
  });
});
