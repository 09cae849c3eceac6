/**
 * What the frame does for each call of the parent ({@link HANDLERS}): the frame's own wallet
 * (the in-origin wallet, living in this frame) does the work. The arguments are plain data already
 * (protocol.ts); each wallet method checks its own (INVALID_ARGUMENT). A user action runs inside
 * the signing policy's scope: the frame describes it from these arguments, sends both legs itself
 * and signs only after a trusted click (approval.ts). Results go up as plain data: sessions,
 * records and counts, never a key, a code or a bundle.
 *
 * Here, in the page's startup script: the calls that open no prompt (reads, logins' first steps,
 * the code entry, OAuth's login). Loaded on first use (load-on-first-use.ts: a failed load is
 * NETWORK_ERROR, and nothing is sent or signed): the user actions with their words and screens
 * (prompts.ts) and the passkey ceremonies (passkeys.ts, with SimpleWebAuthn and the ceremony window).
 */
import { WalletError, isWalletError } from '../../errors.js';
import type { OtpLogin, StartOtpLoginArgs } from '../../flows/otp.js';
import { isRecord } from '../../types.js';
import { loadOnFirstUse } from '../../load-on-first-use.js';
import type { FrameMethod } from '../protocol.js';
import { aborted } from './approval.js';
import { arg, keepLogin, loginOf, stringsOf, type FrameContext } from './context.js';
import { OAUTH_HANDLERS } from './oauth.js';
import type { PasskeyMethod } from './passkeys.js';
import type { PromptedMethod } from './prompts.js';
import { renderCodeEntry } from './views.js';

export type { FrameContext } from './context.js';

type Handler = (ctx: FrameContext, args: readonly unknown[], signal: AbortSignal) => Promise<unknown>;

/** The prompts' code (prompts.ts): the user actions and the approval screens the policy draws with (main.ts). */
export const prompts = loadOnFirstUse(() => import('./prompts.js'), 'approval prompt');
const passkeys = loadOnFirstUse(() => import('./passkeys.js'), 'passkey');

/** `method` of the user actions (prompts.ts), run once their code is loaded. */
const prompted = (method: PromptedMethod): Handler => (ctx, args, signal) => prompts(async (m) => m.PROMPTED[method](ctx, args, signal));

/** `method` of the passkey ceremonies (passkeys.ts), run once their code is loaded. */
const passkey = (method: PasskeyMethod): Handler => (ctx, args, signal) => passkeys(async (m) => m.PASSKEY_HANDLERS[method](ctx, args, signal));

/**
 * The code entry for `login`: the user types the code in the frame; a wrong code is told there and
 * typed again. Resolves to the session; fails on a code that cannot work any more (OTP_EXPIRED),
 * the user's Cancel (SIGNER_DECLINED) or the parent's (ABORTED).
 */
function enterCode(ctx: FrameContext, handle: string, login: OtpLogin, signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(aborted());
    const strings = stringsOf(ctx);
    const where = login.type === 'SMS_OTP' ? strings.otpWherePhone : strings.otpWhereEmail;
    const finish = (settle: () => void) => {
      signal.removeEventListener('abort', onAbort);
      entry.close();
      ctx.screensChanged();
      settle();
    };
    const onAbort = () => finish(() => reject(aborted()));
    const entry = renderCodeEntry(
      strings,
      where,
      (code) => {
        login.verify(code).then(
          (session) => {
            ctx.logins.delete(handle);
            finish(() => resolve(session));
          },
          (error: unknown) => {
            if (signal.aborted) return;
            if (isWalletError(error, 'OTP_CODE_INVALID')) entry.retry(strings.otpWrong);
            else finish(() => reject(error));
          },
        );
      },
      () => finish(() => reject(new WalletError('SIGNER_DECLINED', 'the user cancelled the code entry in the signer frame'))),
    );
    signal.addEventListener('abort', onAbort, { once: true });
    ctx.screensChanged();
  });
}

/** The longest email, phone, id or type `startOtpLogin` takes (an email address is at most 254). */
const MAX_START_FIELD = 320;

/**
 * `startOtpLogin`'s one argument as the frame takes it: exactly `{ email }`, `{ phone }` (the proxy's
 * email-first mode) or `{ accountId, type?, credentialId? }`, each a non-empty string of at most
 * {@link MAX_START_FIELD} characters; anything else is INVALID_ARGUMENT before any request.
 */
export function otpStartArgs(args: readonly unknown[]): StartOtpLoginArgs {
  const value = args[0];
  const fields = args.length === 1 && isRecord(value) ? Object.entries(value) : [];
  const strings = fields.length > 0 && fields.every(([, v]) => typeof v === 'string' && v !== '' && v.length <= MAX_START_FIELD);
  const keys = fields.map(([k]) => k);
  const contact = keys.length === 1 && (keys[0] === 'email' || keys[0] === 'phone');
  const account = keys.includes('accountId') && keys.every((k) => k === 'accountId' || k === 'type' || k === 'credentialId');
  if (!strings || !(contact || account)) throw new WalletError('INVALID_ARGUMENT', 'startOtpLogin takes { email }, { phone } or { accountId, type?, credentialId? } (strings)');
  return value as StartOtpLoginArgs;
}

export const HANDLERS: Readonly<Record<FrameMethod, Handler>> = {
  restore: (ctx) => ctx.wallet.restore(),
  refresh: (ctx, args) => ctx.wallet.refresh(arg(args, 0)),
  logout: (ctx, args) => ctx.wallet.logout(arg(args, 0)),
  listSessions: (ctx, args) => ctx.wallet.listSessions(arg(args, 0)),
  listCredentials: (ctx, args) => ctx.wallet.listCredentials(arg(args, 0)),
  listDelegatedKeys: (ctx, args) => ctx.wallet.listDelegatedKeys(arg(args, 0)),
  getDelegatedKey: (ctx, args) => ctx.wallet.getDelegatedKey(arg(args, 0)),
  createQuote: (ctx, args) => ctx.wallet.createQuote(arg(args, 0)),
  startOtpLogin: async (ctx, args) => keepLogin(ctx, await ctx.wallet.startOtpLogin(otpStartArgs(args))),
  'otp.resend': (ctx, args) => loginOf(ctx, args[0]).resend(),
  'otp.verify': (ctx, args, signal) => enterCode(ctx, args[0] as string, loginOf(ctx, args[0]), signal),
  addSmsOtp: prompted('addSmsOtp'),
  addEmailOtp: prompted('addEmailOtp'),
  signOutOtherDevices: prompted('signOutOtherDevices'),
  deleteCredential: prompted('deleteCredential'),
  createDelegatedKey: prompted('createDelegatedKey'),
  revokeDelegatedKey: prompted('revokeDelegatedKey'),
  updateAccount: prompted('updateAccount'),
  executeQuote: prompted('executeQuote'),
  changeContact: prompted('changeContact'),
  addOAuthCredential: prompted('addOAuthCredential'),
  exportWallet: prompted('exportWallet'),
  preparePasskeyLogin: passkey('preparePasskeyLogin'),
  'passkey.login': passkey('passkey.login'),
  preparePasskeyRegistration: passkey('preparePasskeyRegistration'),
  registerPasskey: passkey('registerPasskey'),
  ...OAUTH_HANDLERS,
};
