/**
 * Passkeys in the signer frame (THREAT-MODEL.md P3): the frame makes the session key, runs the
 * WebAuthn ceremony, verifies with its own key and keeps the session; the parent gets the session's
 * public facts (login) or the new credential (registration), never a key or a challenge's key.
 *
 * - Every ceremony starts from a trusted click in the frame, on a screen that says what it does
 *   (browsers want the frame focused, and a user activation to create a credential in a frame).
 * - The ceremony runs in the frame (the parent's iframe carries `allow="publickey-credentials-get;
 *   publickey-credentials-create"`). Where the browser refuses it there, it moves to a window on
 *   the signer origin (popup.ts): at once when the frame's permissions policy says the feature is
 *   not allowed here (Chromium tells), else after the refusal (NotAllowedError or SecurityError,
 *   which the browser does not explain) on a screen that offers the window, opened by a new click.
 * - A registration is a user action: its signature (purpose `add-credential`) is approved on the
 *   frame's approval screen like any other (approval.ts), after the ceremony.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { WalletError, isWalletError } from '../../errors.js';
import type { PasskeyCeremonies, PasskeyContext, PasskeyLogin } from '../../flows/passkey.js';
import { walletContext } from '../../session/context.js';
import type { Wallet } from '../../wallet-api.js';
import { aborted, approveAction, type ApprovalDescription, type SigningPolicy } from './approval.js';
import { ceremonyInPopup } from './popup.js';
import { el, mount } from './views.js';
import type { Strings } from '../words/strings.js';
import type { WordsOptions } from '../words/types.js';
import { accountOf, stringsOf } from './context.js';

/** What the passkey handlers use of the frame's context (context.ts' FrameContext has it). */
export interface PasskeyFrameContext {
  readonly wallet: Wallet;
  readonly policy: SigningPolicy;
  readonly screensChanged: () => void;
  /** The host's strings (config.ts); default the table's. */
  readonly words?: WordsOptions;
}

type PasskeyHandler = (ctx: PasskeyFrameContext, args: readonly unknown[], signal: AbortSignal) => Promise<unknown>;

/** Prepared logins kept at once per frame; the oldest is forgotten past it. */
const MAX_PREPARED = 8;

interface Kept {
  readonly passkeys: PasskeyContext;
  readonly logins: Map<string, { readonly login: PasskeyLogin; readonly accountId: string }>;
}

const kept = new WeakMap<PasskeyFrameContext, Kept>();

const flows = () => import('../../flows/passkey.js');

/** Whether this document may use `feature` (Chromium's permissions policy); undefined where the browser does not tell. */
function policyAllows(feature: string): boolean | undefined {
  const doc = document as unknown as { permissionsPolicy?: { allowsFeature?: (f: string) => boolean }; featurePolicy?: { allowsFeature?: (f: string) => boolean } };
  const policy = doc.permissionsPolicy ?? doc.featurePolicy;
  return typeof policy?.allowsFeature === 'function' ? policy.allowsFeature(feature) : undefined;
}

/** The browser's refusal name, through SimpleWebAuthn's wrapper. */
function refusalName(error: unknown): string {
  const e = error as { name?: unknown; cause?: { name?: unknown } } | null;
  const name = typeof e?.cause?.name === 'string' ? e.cause.name : e?.name;
  return typeof name === 'string' ? name : '';
}

/** A screen with a title, lines, Cancel and a primary button; `onGo` gets only trusted clicks. */
function renderPrompt(
  strings: Strings,
  testId: string,
  description: ApprovalDescription,
  goLabel: string,
  onGo: () => void,
  onCancel: () => void,
): { waiting(on: boolean): void; close(): void } {
  const list = el('dl', { className: 'lines' });
  for (const [label, value] of description.lines) list.append(el('dt', { text: label }), el('dd', { text: value }));
  const go = el('button', { text: goLabel, className: 'primary', testId: `${testId}-continue` });
  const cancel = el('button', { text: strings.cancel, testId: `${testId}-cancel` });
  go.type = 'button';
  cancel.type = 'button';
  go.addEventListener('click', (event) => {
    // A click made by script is not the user: it starts nothing.
    if (event.isTrusted && !go.disabled) onGo();
  });
  cancel.addEventListener('click', (event) => {
    if (event.isTrusted) onCancel();
  });
  const status = el('p', { className: 'error' });
  status.setAttribute('role', 'status');
  const screen = el('section', { className: 'screen', testId }, el('h1', { text: description.title }), list, status, el('div', { className: 'buttons' }, cancel, go));
  screen.setAttribute('role', 'dialog');
  screen.setAttribute('aria-label', description.title);
  const remove = mount(screen);
  go.focus();
  return {
    waiting(on) {
      go.disabled = on;
      status.textContent = on ? strings.passkeyWaiting : '';
    },
    close: remove,
  };
}

/**
 * Shows `description` until the user clicks its button (then runs `run` within that click and
 * resolves to its result) or Cancel (SIGNER_DECLINED), or the parent stops waiting (ABORTED). The
 * screen stays, waiting, while `run` runs (the ceremony needs the frame shown and focused).
 */
function onClick<T>(ctx: PasskeyFrameContext, testId: string, description: ApprovalDescription, goLabel: string, signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(aborted());
    const finish = (settle: () => void) => {
      signal.removeEventListener('abort', onAbort);
      prompt.close();
      ctx.screensChanged();
      settle();
    };
    const onAbort = () => finish(() => reject(aborted()));
    const prompt = renderPrompt(
      stringsOf(ctx),
      testId,
      description,
      goLabel,
      () => {
        prompt.waiting(true);
        run().then(
          (value) => finish(() => resolve(value)),
          (error: unknown) => finish(() => reject(error)),
        );
      },
      () => finish(() => reject(new WalletError('SIGNER_DECLINED', 'the user cancelled the passkey in the signer frame'))),
    );
    signal.addEventListener('abort', onAbort, { once: true });
    ctx.screensChanged();
  });
}

/** The frame's ceremonies: here, or in a window of the signer origin where the browser refuses them here. */
function frameCeremonies(ctx: PasskeyFrameContext): PasskeyCeremonies {
  const run = async <T>(feature: string, here: () => Promise<T>, there: () => Promise<T>): Promise<T> => {
    const allowed = policyAllows(feature);
    // Still within the user's click: the window may open.
    if (allowed === false) return there();
    try {
      return await here();
    } catch (error) {
      const name = refusalName(error);
      if (allowed === true || (name !== 'NotAllowedError' && name !== 'SecurityError')) throw error;
      // The browser does not say why: offer the window; a new click opens it.
      const s = stringsOf(ctx);
      const description = { title: s.passkeyWindowTitle, lines: [[s.passkeyWindowWhy, s.passkeyWindowReason] as const] };
      return onClick(ctx, 'signer-passkey-window', description, s.passkeyWindowOpen, new AbortController().signal, there).catch((declined: unknown) => {
        throw isWalletError(declined, 'SIGNER_DECLINED') ? error : declined;
      });
    }
  };
  return {
    get: (optionsJSON) => run('publickey-credentials-get', () => startAuthentication({ optionsJSON }), () => ceremonyInPopup('get', optionsJSON)),
    create: (optionsJSON) => run('publickey-credentials-create', () => startRegistration({ optionsJSON }), () => ceremonyInPopup('create', optionsJSON)),
  };
}

/**
 * `run` as a user action whose one signature (`add-credential`) the user approves on the approval
 * screen showing `description`; the user's decline is SIGNER_DECLINED.
 */
function addCredential<T>(ctx: PasskeyFrameContext, description: ApprovalDescription, signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  return approveAction(ctx.policy, description, ['add-credential'], signal, run);
}

function keptFor(ctx: PasskeyFrameContext): Kept {
  let k = kept.get(ctx);
  if (k === undefined) {
    k = { passkeys: { ...walletContext(ctx.wallet), ceremonies: frameCeremonies(ctx) }, logins: new Map() };
    kept.set(ctx, k);
  }
  return k;
}

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value) ?? String(value));

/** The frame's passkey methods (methods.ts forwards them here, this module loaded on first use). */
export type PasskeyMethod = 'preparePasskeyLogin' | 'passkey.login' | 'preparePasskeyRegistration' | 'registerPasskey';

export const PASSKEY_HANDLERS: Readonly<Record<PasskeyMethod, PasskeyHandler>> = {
  /** The challenge for a key the frame makes; the parent gets a handle and the public facts. */
  preparePasskeyLogin: async (ctx, args) => {
    const k = keptFor(ctx);
    const accountId = accountOf(args[0]);
    const login = await (await flows()).preparePasskeyLogin(k.passkeys, args[0] as { accountId: string; credentialId?: string });
    const handle = crypto.randomUUID();
    k.logins.set(handle, { login, accountId });
    for (const old of k.logins.keys()) {
      if (k.logins.size <= MAX_PREPARED) break;
      k.logins.delete(old);
    }
    return { handle, credentialId: login.credentialId, expiresAt: login.expiresAt };
  },
  /** The login's ceremony, on the user's click in the frame; resolves to the session (public facts). */
  'passkey.login': (ctx, args, signal) => {
    const k = keptFor(ctx);
    const handle = args[0];
    const entry = typeof handle === 'string' ? k.logins.get(handle) : undefined;
    if (entry === undefined) return Promise.reject(new WalletError('INVALID_ARGUMENT', 'no passkey login prepared with this handle in the signer frame'));
    const s = stringsOf(ctx);
    const description = { title: s.passkeyLoginTitle, lines: [[s.account, entry.accountId] as const] };
    return onClick(ctx, 'signer-passkey', description, s.continue, signal, async () => {
      const session = await entry.login.login();
      k.logins.delete(handle as string);
      return session;
    });
  },
  preparePasskeyRegistration: async (ctx, args) => {
    await (await flows()).preparePasskeyRegistration(keptFor(ctx).passkeys, args[0] as { accountId: string });
  },
  /** The registration's ceremony on the user's click; then its signature, approved on the approval screen. */
  registerPasskey: async (ctx, args, signal) => {
    const k = keptFor(ctx);
    const accountId = accountOf(args[0]);
    const nickname = (args[0] as { nickname?: unknown }).nickname;
    const { registerPasskey, preparePasskeyRegistration } = await flows();
    // Fetched now, so that the ceremony starts at once on the click.
    await preparePasskeyRegistration(k.passkeys, { accountId });
    const s = stringsOf(ctx);
    const description: ApprovalDescription = { title: s.addPasskeyTitle, lines: [[s.account, accountId], [s.nickname, show(nickname)]] };
    return onClick(ctx, 'signer-passkey', description, s.continue, signal, () => addCredential(ctx, description, signal, () => registerPasskey(k.passkeys, { accountId, nickname: nickname as string })));
  },
};
