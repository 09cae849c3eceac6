// A React app's use of embedded-wallet-signer/react and its test double (createElement: the
// consumer compiles .ts files only), plus type tests of the snapshot's narrowing.
import { createElement as h, type ReactNode } from 'react';
import { createWallet, type SessionSnapshot } from 'embedded-wallet-signer';
import { WalletProvider, createSignatureRequests, useOtpLogin, usePendingSignature, useSession } from 'embedded-wallet-signer/react';
import { createTestWallet } from 'embedded-wallet-signer/react/testing';

const signatures = createSignatureRequests();
export const wallet = createWallet({ baseUrl: '/api/wallet', trustedKeys: ['04'.padEnd(130, '0')], onBeforeSign: signatures.onBeforeSign });

function Status(): ReactNode {
  const status = useSession((s) => s.status);
  const otp = useOtpLogin();
  const pending = usePendingSignature();
  return h('p', null, status, otp.step, pending?.purpose ?? '');
}

export const app = h(WalletProvider, { wallet, signatures, hint: { accountId: null } }, h(Status));
export const test = createTestWallet({ signedInAs: 'InternalAccount:1' });

export function expiry(s: SessionSnapshot): number | null {
  if (s.status === 'active') return s.expiresAt; // a number once signed in
  // @ts-expect-error a signed-out snapshot has no session to read an id from
  void s.session.id;
  return null;
}
