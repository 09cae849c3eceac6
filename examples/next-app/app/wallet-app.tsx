'use client';
// The wallet side of the app, with embedded-wallet-signer/react, email-first: the bootstrap is
// fetched at runtime (GET /api/wallet-bootstrap: a sandbox restart with a new enclave key, or
// another signer, needs no rebuild), one wallet per page (made once, at module scope), the session
// from useSession, the email-code login from useOtpLogin().start({ email }) — the app's login too:
// the proxy sets the app's session cookie when the code is verified —, a signed action, and logout.
//
// In-origin mode the wallet lives in this page and each signature is confirmed in the app's own UI
// (usePendingSignature). In frame mode (the bootstrap names a signer page) the code is typed and
// every signature approved in the signer frame: this page shows where, and has no confirmation of
// its own (it could not answer for the user: src/signer/THREAT-MODEL.md P1). Each mode loads only
// its own entry of the package.
import type { AuthSession, Wallet, WalletBootstrap } from 'embedded-wallet-signer';
import type { FrameWallet } from 'embedded-wallet-signer/frame';
import {
  WalletProvider,
  createSignatureRequests,
  defaultSignaturePolicy,
  useOtpLogin,
  usePendingSignature,
  useSession,
  useWallet,
  type SignatureRequests,
} from 'embedded-wallet-signer/react';
import { useCallback, useEffect, useState } from 'react';

/** What GET /api/wallet-bootstrap answers (lib/server.ts `ExampleBootstrap`). */
type Bootstrap = WalletBootstrap | { readonly signerUrl: string };

/** The page's wallet: in-origin with the app's confirmation queue, or frame mode's. */
type Loaded = { readonly wallet: Wallet; readonly signatures: SignatureRequests } | { readonly wallet: FrameWallet; readonly signatures?: undefined };

async function makeWallet(boot: Bootstrap): Promise<Loaded> {
  if ('signerUrl' in boot) {
    const { createWallet, signerFrame } = await import('embedded-wallet-signer/frame');
    return { wallet: createWallet({ signer: signerFrame({ url: boot.signerUrl }) }) };
  }
  const { createWallet } = await import('embedded-wallet-signer');
  // The login's own signature (made with the new session key over the code check) is not a user
  // decision and is not shown; every signed action is (the README's login-signature policy).
  const signatures = createSignatureRequests({ policy: (r) => (r.purpose === 'otp-verify' ? true : defaultSignaturePolicy(r)) });
  const wallet = createWallet({ baseUrl: boot.baseUrl, trustedKeys: [...boot.trustedKeys], onBeforeSign: signatures.onBeforeSign });
  return { wallet, signatures };
}

let loading: Promise<Loaded> | undefined;
/** The page's one wallet: the bootstrap fetched and the wallet made once, however often React mounts. */
function loadWallet(): Promise<Loaded> {
  loading ??= fetch('/api/wallet-bootstrap')
    .then((r) => (r.ok ? (r.json() as Promise<Bootstrap>) : Promise.reject(new Error(String(r.status)))))
    .then(makeWallet);
  loading.catch(() => (loading = undefined)); // a failed load is tried again on the next mount
  return loading;
}

/** Loads the wallet at runtime; the server and the first client render both show `initializing`. */
export function WalletApp() {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    loadWallet().then((l) => live && setLoaded(l), () => live && setFailed(true));
    return () => void (live = false);
  }, []);
  if (failed) return <p role="alert">The wallet could not be loaded.</p>;
  if (loaded === null) return <p data-testid="wallet-status">Wallet: initializing</p>;
  if (loaded.signatures === undefined) {
    return (
      <WalletProvider wallet={loaded.wallet}>
        <SessionStatus />
        <Body />
        <p data-testid="approvals-in-frame">Every signature is approved in the wallet window, not in this page.</p>
      </WalletProvider>
    );
  }
  return (
    <WalletProvider wallet={loaded.wallet} signatures={loaded.signatures}>
      <SessionStatus />
      <Body />
      <ConfirmSignature />
    </WalletProvider>
  );
}

function SessionStatus() {
  const status = useSession((s) => s.status);
  const reason = useSession((s) => s.reason);
  const expiresAt = useSession((s) => s.expiresAt);
  return (
    <>
      <p data-testid="wallet-status">
        Wallet: {status}
        {reason && reason !== 'none' ? ` (${reason})` : ''}
      </p>
      {expiresAt !== null && <p data-testid="session-expiry">Session expires at {new Date(expiresAt).toISOString()} (service clock)</p>}
    </>
  );
}

/** This account's sessions on the service (this browser's and other devices'): a plain read. */
function Devices({ accountId }: { accountId: string }) {
  const wallet = useWallet();
  const [sessions, setSessions] = useState<AuthSession[] | null>(null);
  const load = useCallback(() => {
    wallet.listSessions(accountId).then(setSessions, () => setSessions(null));
  }, [wallet, accountId]);
  useEffect(load, [load]);
  return (
    <div>
      <p data-testid="devices">{sessions === null ? 'Sessions: …' : `Sessions on the service: ${sessions.length}`}</p>
      <button data-testid="reload-sessions" onClick={load}>
        Reload sessions
      </button>
    </div>
  );
}

function Body() {
  const accountId = useSession((s) => s.session?.accountId ?? null);
  const status = useSession((s) => s.status);
  if (status === 'initializing') return <p>Loading your wallet…</p>;
  return accountId !== null ? <Account accountId={accountId} /> : <EmailLogin />;
}

/**
 * The app's login: an email, then the code sent to it. No account id, no sign-up form. In frame
 * mode the code is typed in the signer frame (`codeEntry: 'frame'`), never in this page.
 */
function EmailLogin() {
  const otp = useOtpLogin();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  if (otp.step === 'awaiting-code' && otp.codeEntry === 'frame') {
    return (
      <div>
        <p data-testid="code-in-frame">A code was sent to {email}: type it in the wallet window.</p>
        {/* A Cancel in the frame leaves the login awaiting its code: verify() opens the entry again. */}
        {otp.error && (
          <button data-testid="code-again" onClick={() => void otp.verify()}>
            Type the code
          </button>
        )}
      </div>
    );
  }
  if (otp.step === 'idle' || otp.step === 'sending' || otp.step === 'error') {
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void otp.start({ email });
        }}
      >
        <label>
          Email <input data-testid="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" required />
        </label>
        <button data-testid="send-code" type="submit" disabled={otp.step === 'sending'}>
          Email me a code
        </button>
        {otp.error && <p role="alert">Could not send the code: {otp.error.code}</p>}
      </form>
    );
  }
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void otp.verify(code);
      }}
    >
      <p>A code was sent to {email}.</p>
      <label>
        Code <input data-testid="code" value={code} onChange={(e) => setCode(e.target.value)} inputMode="numeric" autoComplete="one-time-code" />
      </label>
      <button data-testid="login" type="submit" disabled={otp.step === 'verifying'}>
        Log in
      </button>
      {otp.error && <p role="alert">{otp.error.code === 'OTP_CODE_INVALID' ? 'Wrong code, try again.' : otp.error.code}</p>}
    </form>
  );
}

function Account({ accountId }: { accountId: string }) {
  const wallet = useWallet();
  const [privateMode, setPrivateMode] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  async function togglePrivate() {
    setResult(null);
    const wanted = !privateMode;
    try {
      const account = await wallet.updateAccount(accountId, { privateEnabled: wanted });
      const on = account.privateEnabled ?? wanted;
      setPrivateMode(on);
      setResult(`Private mode: ${on ? 'on' : 'off'}`);
    } catch (error) {
      setResult(`Not changed: ${(error as { code?: string }).code ?? 'error'}`);
    }
  }
  return (
    <div>
      <button data-testid="private" onClick={() => void togglePrivate()}>
        Turn private mode {privateMode ? 'off' : 'on'} (signed)
      </button>
      {result && <p data-testid="result">{result}</p>}
      <Devices accountId={accountId} />
      <button data-testid="logout" onClick={() => void wallet.logout()}>
        Log out of the wallet
      </button>
    </div>
  );
}

/** The app's own confirmation: what is about to be signed, in the app's words and markup. */
function ConfirmSignature() {
  const pending = usePendingSignature();
  if (!pending) return null;
  return (
    <section data-testid="confirm" aria-label="Confirm signature">
      <h2>Confirm: {pending.purpose}</h2>
      <pre>{JSON.stringify(pending.payload, null, 2)}</pre>
      <button data-testid="approve" onClick={pending.approve}>
        Sign
      </button>
      <button data-testid="reject" onClick={pending.reject}>
        Cancel
      </button>
    </section>
  );
}
