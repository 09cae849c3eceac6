// Against the sandbox: onBeforeSign waits are bounded and a prompt never holds an account hostage
// (automatic refresh with a hook that never answers; a logout cancelling a refresh's pending prompt
// in another tab), cross-tab messages are coalesced, and sessions stored by version 0.1 survive.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyStore, createMemoryBackend } from '../../src/keys/index.js';
import { createTabChannel } from '../../src/session/channel.js';
import { browserHost, type ChannelLike } from '../../src/session/host.js';
import type { SignRequest } from '../../src/transport/index.js';
import { codeOf, emailLogin, nextEvent, testWallet, useTestSandbox } from '../flows/helpers/sandbox.js';
import { flush, until } from '../helpers/wait-for.js';

const env = useTestSandbox();
const MINUTE = 60;

describe('bounded prompts', () => {
  it('an automatic refresh whose prompt never answers fails alone within the bound; a manual refresh and logout still work', async () => {
    const { accountId } = await env.admin.customer();
    const seen: SignRequest[] = [];
    const { wallet, requests } = testWallet(env.sandbox, {
      automaticSignTimeoutMs: 100,
      onBeforeSign: (r) => {
        seen.push(r);
        return r.automatic ? new Promise<boolean>(() => undefined) : true;
      },
    });
    const session = await emailLogin(wallet, accountId);
    const failed = nextEvent(wallet, 'refresh-failed', 5000);
    env.admin.advance(10 * MINUTE + 5);
    await wallet.listSessions(accountId);
    const { error } = await failed;
    expect(error.code).toBe('SIGNING_REFUSED');
    expect(error.details).toEqual({ timeoutMs: 100 });
    const automatic = seen.filter((r) => r.automatic);
    expect(automatic.map((r) => r.purpose)).toEqual(['refresh-session']);
    expect(automatic[0]!.signal.aborted).toBe(true);
    // Nothing was signed for it, and the account is not locked: the user's refresh goes through.
    expect(requests.filter((r) => r.path.endsWith('/refresh') && r.signed)).toHaveLength(0);
    const next = await wallet.refresh(accountId);
    expect(next.id).not.toBe(session.id);
    await wallet.logout(accountId);
    // This app refuses every automatic signature; ending the replaced session is not one of them
    // (the refresh it completes was approved: I4, I8), nor are the logout's ends: nothing is left.
    expect((await wallet.listSessions(accountId)).map((s) => s.id)).toEqual([]);
    expect(seen.filter((r) => r.automatic).map((r) => r.purpose)).toEqual(['refresh-session']);
    wallet.dispose();
  });

  it('a logout in tab B cancels the prompt of a refresh tab A is waiting on; nothing is left on the service', async () => {
    const { accountId } = await env.admin.customer();
    const backend = createMemoryBackend();
    const crossTab = { name: `bounded-${randomUUID()}` };
    let prompted!: () => void;
    const prompt = new Promise<void>((r) => (prompted = r));
    let promptSignal: AbortSignal | undefined;
    const a = testWallet(env.sandbox, {
      backend,
      crossTab,
      autoRefresh: false,
      onBeforeSign: (r) => {
        if (r.purpose !== 'refresh-session') return true;
        promptSignal = r.signal;
        prompted();
        return new Promise<boolean>(() => undefined); // the user walked away
      },
    });
    const b = testWallet(env.sandbox, { backend, crossTab, autoRefresh: false });
    await a.wallet.restore();
    await b.wallet.restore();
    await emailLogin(a.wallet, accountId);
    await expect.poll(() => b.wallet.session(accountId)).not.toBeNull();
    const refreshing = codeOf(a.wallet.refresh(accountId));
    await prompt;
    const started = Date.now();
    await b.wallet.logout(accountId);
    expect(Date.now() - started).toBeLessThan(5000); // not the 2-minute prompt bound
    expect(await refreshing).toBe('NOT_LOGGED_IN');
    expect(promptSignal?.aborted).toBe(true);
    expect(a.requests.filter((r) => r.path.endsWith('/refresh') && r.signed)).toHaveLength(0);
    expect(await b.wallet.listSessions(accountId)).toEqual([]);
    expect(a.wallet.session(accountId)).toBeNull();
    a.wallet.dispose();
    b.wallet.dispose();
  });
});

describe('cross-tab messages', () => {
  it('a flood of messages costs at most two syncs per account (one running, one pending)', async () => {
    const listeners: ChannelLike[] = [];
    const host = {
      ...browserHost,
      openChannel: (): ChannelLike => {
        const ch: ChannelLike = { onmessage: null, postMessage: () => undefined, close: () => undefined };
        listeners.push(ch);
        return ch;
      },
    };
    let syncs = 0;
    let finish!: () => void;
    const channel = createTabChannel({
      name: 'flood',
      host,
      enabled: () => true,
      onSync: async () => {
        syncs++;
        await new Promise<void>((r) => (finish = r));
      },
    });
    channel.start();
    for (let i = 0; i < 1000; i++) listeners[0]!.onmessage?.({ data: { from: `other-${i}`, account: 'InternalAccount:1' } });
    // Messages without a sender, from this tab, or not objects are ignored.
    for (const junk of [null, 'x', { account: 'InternalAccount:1' }]) listeners[0]!.onmessage?.({ data: junk });
    expect(syncs).toBe(1);
    finish();
    await until(() => syncs === 2, 'the one sync the flood left pending');
    finish();
    await flush(); // the channel's bookkeeping only chains promises
    expect(syncs).toBe(2);
    channel.close();
  });
});

describe('upgrade', () => {
  it('sessions stored in the 0.1 layout are restored (and stored in the new one)', async () => {
    const { accountId } = await env.admin.customer();
    const first = testWallet(env.sandbox);
    const session = await emailLogin(first.wallet, accountId);
    first.wallet.dispose();
    // Rewrite storage as version 0.1 kept it: one record per session and a current pointer.
    const meta = createKeyStore({ backend: first.backend }).meta;
    await meta.delete(`account:${accountId}`);
    await meta.put(`session:${session.id}`, session);
    await meta.put(`current:${accountId}`, { sessionId: session.id });
    const second = testWallet(env.sandbox, { backend: first.backend });
    expect(await second.wallet.restore()).toEqual([session]);
    expect(second.wallet.session(accountId)).toEqual(session);
    const names = (await meta.list()).map(([name]) => name);
    expect(names).toContain(`account:${accountId}`);
    expect(names.filter((n) => n.startsWith('session:') || n.startsWith('current:'))).toEqual([]);
    await second.wallet.logout(accountId);
    expect(await second.wallet.listSessions(accountId)).toEqual([]);
    second.wallet.dispose();
  });
});
