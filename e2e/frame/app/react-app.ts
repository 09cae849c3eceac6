// A small React app in frame mode (e2e/frame/10-react.spec.ts): the React bindings over the
// FrameWallet, the wallet's email-first login as the app's login (emailLoginProxy), one signed
// action, logout. The code is typed in the signer frame; the app shows where it is awaited.
import { createElement as h, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { WalletProvider, useIsSignedIn, useLogout, useOtpLogin, useSession, useWalletAction } from '../../../src/react/index.js';
import { createWallet, signerFrame } from '../../../src/signer/parent/index.js';

const wallet = createWallet({ signer: signerFrame({ url: new URLSearchParams(location.search).get('signer') ?? '' }) });

function Login(): ReactNode {
  const otp = useOtpLogin();
  const [email, setEmail] = useState('');
  return h(
    'form',
    { onSubmit: (e: Event) => (e.preventDefault(), void otp.start({ email })) },
    h('input', { 'data-testid': 'email', type: 'email', value: email, onChange: (e: { target: HTMLInputElement }) => setEmail(e.target.value) }),
    h('button', { 'data-testid': 'send-code', type: 'submit', disabled: otp.step === 'sending' }, 'Email me a code'),
    h('p', { 'data-testid': 'otp-step' }, `${otp.step}:${otp.codeEntry ?? ''}`),
    otp.step === 'awaiting-code' && otp.codeEntry === 'frame' ? h('p', { 'data-testid': 'type-in-frame' }, 'Type the code in the wallet window.') : null,
    otp.errorText ? h('p', { role: 'alert', 'data-testid': 'otp-error' }, otp.errorText) : null,
  );
}

function Account(): ReactNode {
  const accountId = useSession((s) => s.accountId) ?? '';
  const goPrivate = useWalletAction((w, on: boolean) => w.updateAccount(accountId, { privateEnabled: on }));
  const logout = useLogout();
  return h(
    'div',
    null,
    h('p', { 'data-testid': 'account' }, accountId),
    h('button', { 'data-testid': 'private', disabled: goPrivate.status === 'pending', onClick: () => void goPrivate.run(true) }, 'Go private'),
    h('p', { 'data-testid': 'private-status' }, `${goPrivate.status}:${goPrivate.data?.privateEnabled === true ? 'on' : ''}:${goPrivate.error?.code ?? ''}`),
    h('button', { 'data-testid': 'logout', onClick: () => void logout.run() }, 'Log out'),
  );
}

function App(): ReactNode {
  const status = useSession((s) => s.status);
  const signedIn = useIsSignedIn();
  return h('main', null, h('p', { 'data-testid': 'signed-in' }, `${String(signedIn)}:${status}`), status === 'initializing' ? null : signedIn ? h(Account) : h(Login));
}

createRoot(document.getElementById('root')!).render(h(WalletProvider, { wallet }, h(App)));
document.body.dataset.ready = 'true';
