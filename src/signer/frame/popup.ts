/**
 * A passkey ceremony in a window of the signer's own origin, for browsers that refuse WebAuthn in
 * a frame of another origin (THREAT-MODEL.md P3). The frame opens the signer page with
 * {@link POPUP_HASH} from a trusted click (a blocked window is SIGNER_POPUP_BLOCKED); the page
 * there is a top-level window and runs only the ceremony: it gets the options from its opener,
 * runs `navigator.credentials` on the user's click in it, and posts back the browser's answer
 * (public data: the credential's id, client data, authenticator data, signature or attestation).
 * No key, session or storage is involved there: the frame verifies with its own key.
 *
 * Both ends accept messages only from each other, and only from the signer's own origin
 * (`event.source` and `event.origin`, set by the browser); they post only to that origin.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { WalletError } from '../../errors.js';
import { fill, type Strings } from '../words/strings.js';
import { el, mount } from './views.js';
import { POPUP_HASH } from './page-modes.js';
import { openSignerWindow } from './open-window.js';


type Kind = 'get' | 'create';

/** The browser's refusal as it crosses between the windows: its name and message (and SimpleWebAuthn's code). */
interface Refusal {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refusalOf(error: unknown): Refusal {
  const e = isObject(error) || error instanceof Error ? (error as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown }) : {};
  const cause = isObject(e.cause) || e.cause instanceof Error ? (e.cause as { name?: unknown; message?: unknown }) : undefined;
  const name = typeof cause?.name === 'string' ? cause.name : typeof e.name === 'string' ? e.name : 'Error';
  const message = typeof e.message === 'string' ? e.message : 'the passkey ceremony failed';
  return typeof e.code === 'string' && e.code.startsWith('ERROR_') ? { name, message, code: e.code } : { name, message };
}

/** The refusal as the flows read it (flows/webauthn-errors.ts): a DOMException-like error, wrapped as SimpleWebAuthn does when it had a code. */
function errorOf(refusal: Refusal): Error {
  const dom = Object.assign(new Error(refusal.message), { name: refusal.name });
  return refusal.code === undefined ? dom : Object.assign(new Error(refusal.message), { name: 'WebAuthnError', code: refusal.code, cause: dom });
}

/**
 * Opens the ceremony window and runs `kind` there with `optionsJSON`. Call it within a trusted
 * click (the browser opens windows only then). Resolves to the browser's answer; rejects with its
 * refusal (closing the window is NotAllowedError, as dismissing the browser's own prompt).
 */
export function ceremonyInPopup(kind: 'get', optionsJSON: PublicKeyCredentialRequestOptionsJSON): Promise<AuthenticationResponseJSON>;
export function ceremonyInPopup(kind: 'create', optionsJSON: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON>;
export function ceremonyInPopup(kind: Kind, optionsJSON: object): Promise<unknown> {
  const url = new URL(location.href);
  url.hash = POPUP_HASH;
  const popup = openSignerWindow(url.href);
  if (popup === null) {
    return Promise.reject(new WalletError('SIGNER_POPUP_BLOCKED', 'the browser blocked the window the passkey needs (it refused the passkey in this frame)'));
  }
  return new Promise((resolve, reject) => {
    const finish = (settle: () => void) => {
      window.removeEventListener('message', onMessage);
      clearInterval(watch);
      popup.close();
      settle();
    };
    const onMessage = (event: MessageEvent) => {
      if (event.source !== popup || event.origin !== location.origin || !isObject(event.data)) return;
      const data = event.data;
      if (data.type === 'passkey-popup-ready') popup.postMessage({ type: 'passkey-popup-run', kind, optionsJSON }, location.origin);
      else if (data.type === 'passkey-popup-result' && isObject(data.response)) finish(() => resolve(data.response));
      else if (data.type === 'passkey-popup-error' && typeof data.name === 'string' && typeof data.message === 'string') {
        finish(() => reject(errorOf({ name: data.name as string, message: data.message as string, ...(typeof data.code === 'string' ? { code: data.code } : {}) })));
      }
    };
    // The window's own close button: nothing posted, so watch it (the answer is read before the frame closes it).
    const watch = setInterval(() => {
      if (popup.closed) finish(() => reject(errorOf({ name: 'NotAllowedError', message: 'the passkey window was closed' })));
    }, 250);
    window.addEventListener('message', onMessage);
  });
}

/** The ceremony window's screen: what is asked, Cancel and Continue (the ceremony starts on a trusted click). */
function renderCeremony(strings: Strings, kind: Kind, onContinue: () => void, onCancel: () => void): (waiting: boolean) => void {
  const title = kind === 'get' ? strings.passkeyLoginTitle : strings.passkeyCreateTitle;
  const go = el('button', { text: strings.continue, className: 'primary', testId: 'signer-popup-continue' });
  const cancel = el('button', { text: strings.cancel, testId: 'signer-popup-cancel' });
  go.type = 'button';
  cancel.type = 'button';
  go.addEventListener('click', (event) => {
    if (event.isTrusted) onContinue();
  });
  cancel.addEventListener('click', () => onCancel());
  const status = el('p', { text: fill(strings.passkeyAsks, { host: location.host }) });
  mount(el('section', { className: 'screen', testId: 'signer-popup' }, el('h1', { text: title }), status, el('div', { className: 'buttons' }, cancel, go)));
  return (waiting) => {
    go.disabled = waiting;
    cancel.disabled = waiting;
    if (waiting) status.textContent = strings.passkeyWaiting;
  };
}

/** The signer page as the ceremony window: serves one ceremony for its opener (a frame of the same origin), in `strings` (the host's table). */
export function runCeremonyWindow(strings: Strings): void {
  const opener = window.opener as Window | null;
  if (opener === null) {
    mount(el('section', { className: 'screen' }, el('h1', { text: strings.windowIdleTitle }), el('p', { text: strings.passkeyWindowIdle })));
    return;
  }
  const post = (message: Record<string, unknown>) => opener.postMessage(message, location.origin);
  let started = false;
  window.addEventListener('message', (event: MessageEvent) => {
    if (started || event.source !== opener || event.origin !== location.origin || !isObject(event.data)) return;
    const { type, kind, optionsJSON } = event.data;
    if (type !== 'passkey-popup-run' || (kind !== 'get' && kind !== 'create') || !isObject(optionsJSON)) return;
    started = true;
    const waiting = renderCeremony(
      strings,
      kind,
      () => {
        waiting(true);
        const run =
          kind === 'get'
            ? startAuthentication({ optionsJSON: optionsJSON as unknown as PublicKeyCredentialRequestOptionsJSON })
            : startRegistration({ optionsJSON: optionsJSON as unknown as PublicKeyCredentialCreationOptionsJSON });
        run.then(
          (response) => post({ type: 'passkey-popup-result', response: JSON.parse(JSON.stringify(response)) as unknown }),
          (error: unknown) => post({ type: 'passkey-popup-error', ...refusalOf(error) }),
        );
      },
      () => post({ type: 'passkey-popup-error', name: 'NotAllowedError', message: 'the user cancelled in the passkey window' }),
    );
  });
  post({ type: 'passkey-popup-ready' });
}
