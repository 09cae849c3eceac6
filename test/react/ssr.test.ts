// Server rendering in plain Node (no window, no document, no IndexedDB): the React entry imports and
// renders with a real wallet, shows the server snapshot (initializing, or the hinted account), and
// touches nothing of the browser (restore runs in an effect, which a server render never runs).
import { createElement as h, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createWallet } from '../../src/index.js';
import { WalletProvider, createSignatureRequests, useOtpLogin, usePendingSignature, useSession, useWallet } from '../../src/react/index.js';

function App(): ReactNode {
  const s = useSession();
  const status = useSession((x) => x.status);
  const otp = useOtpLogin();
  const pending = usePendingSignature();
  useWallet();
  return h('p', null, `${s.status}|${status}|${s.accountId ?? '-'}|${otp.step}|${pending === null ? 'none' : 'pending'}`);
}

describe('renderToString in plain Node', () => {
  it('has no window, and renders initializing (then the hinted account) without touching browser globals', () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
    expect(typeof (globalThis as { document?: unknown }).document).toBe('undefined');
    expect(typeof (globalThis as { indexedDB?: unknown }).indexedDB).toBe('undefined');
    const signatures = createSignatureRequests();
    const wallet = createWallet({ baseUrl: 'https://example.invalid/api', trustedKeys: 'skip-verification', onBeforeSign: signatures.onBeforeSign });
    let restores = 0;
    const counted = { ...wallet, restore: () => (restores++, wallet.restore()) };
    expect(renderToString(h(WalletProvider, { wallet: counted, signatures }, h(App)))).toBe('<p>initializing|initializing|-|idle|none</p>');
    expect(renderToString(h(WalletProvider, { wallet: counted, signatures, hint: { accountId: 'InternalAccount:1' } }, h(App)))).toBe('<p>initializing|initializing|InternalAccount:1|idle|none</p>');
    expect(restores).toBe(0);
    wallet.dispose();
  });

  it('a hook outside the provider throws WALLET_PROVIDER_MISSING naming the hook; usePendingSignature also without `signatures`', () => {
    expect(() => renderToString(h(App))).toThrow(expect.objectContaining({ code: 'WALLET_PROVIDER_MISSING', message: expect.stringContaining('useSession()') }));
    const Pending = (): ReactNode => h('p', null, String(usePendingSignature()));
    expect(() => renderToString(h(Pending))).toThrow(expect.objectContaining({ code: 'WALLET_PROVIDER_MISSING', message: expect.stringContaining('usePendingSignature()') }));
    const wallet = createWallet({ baseUrl: 'https://example.invalid/api', trustedKeys: 'skip-verification' });
    expect(() => renderToString(h(WalletProvider, { wallet }, h(Pending)))).toThrow(expect.objectContaining({ code: 'WALLET_PROVIDER_MISSING', message: expect.stringContaining('signatures') }));
    expect(renderToString(h(WalletProvider, { wallet, signatures: createSignatureRequests() }, h(Pending)))).toBe('<p>null</p>');
    wallet.dispose();
  });
});
