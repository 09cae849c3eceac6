/**
 * What the frame does for each call of the parent ({@link FRAME_METHODS}): the frame's own wallet
 * (the in-origin wallet, living in this frame) does the work. The arguments are plain data already
 * (protocol.ts); each wallet method checks its own (INVALID_ARGUMENT). A user action runs inside
 * the signing policy's scope: the frame describes it from these arguments, sends both legs itself
 * and signs only after a trusted click (approval.ts). Results go up as plain data: sessions,
 * records and counts, never a key, a code or a bundle.
 */
import { WalletError, isWalletError } from '../../errors.js';
import type { OtpLogin, StartOtpLoginArgs } from '../../flows/otp.js';
import type { Wallet } from '../../wallet-api.js';
import { isRecord, type Quote } from '../../types.js';
import { WALLET_CONTEXT } from '../../session/context.js';
import type { FrameMethod } from '../protocol.js';
import type { SignRequest } from '../../transport/index.js';
import { aborted, approveAction, type ApprovalDescription, type SigningPolicy } from './approval.js';
import { EXPORT_CLEAR_AFTER_MS } from './config.js';
import { DESCRIBE } from './describe.js';
import { OAUTH_HANDLERS } from './oauth.js';
import { PASSKEY_HANDLERS } from './passkeys.js';
import { wordsOf, type InWords } from './words-hookup.js';
import { exportInFrame } from './export.js';
import { phraseRenderer } from './export-view.js';
import { renderCodeEntry } from './views.js';

export interface FrameContext {
  readonly wallet: Wallet;
  readonly policy: SigningPolicy;
  /** Logins under way, by the handle the parent holds (the login object never leaves the frame). */
  readonly logins: Map<string, OtpLogin>;
  /** The UI changed (a screen opened or closed). */
  readonly screensChanged: () => void;
  /** How long an export's phrase stays on screen (the host's `exportClearAfterMs`); default 60 s. */
  readonly exportClearAfterMs?: number;
  /** The words in the host's strings, locale and time zone (its configuration); default the table's. */
  readonly words?: InWords;
}

type Handler = (ctx: FrameContext, args: readonly unknown[], signal: AbortSignal) => Promise<unknown>;

/** Logins kept at once; the oldest is forgotten past it. */
const MAX_LOGINS = 8;

/** A user action: described, run in the policy's scope, a click per signature. */
function userAction(method: FrameMethod, purposes: readonly string[], run: (ctx: FrameContext, args: readonly unknown[]) => Promise<unknown>): Handler {
  const describe = DESCRIBE[method];
  if (describe === undefined) throw new Error(`no description for ${method}`);
  return (ctx, args, signal) => approveAction(ctx.policy, describe(args, wordsOf(ctx)), purposes, signal, () => run(ctx, args));
}

/** Keeps `login` under a fresh handle; the parent gets the handle and the public facts. */
function keepLogin(ctx: FrameContext, login: OtpLogin): { handle: string; credentialId: string; type: string } {
  const handle = crypto.randomUUID();
  ctx.logins.set(handle, login);
  for (const old of ctx.logins.keys()) {
    if (ctx.logins.size <= MAX_LOGINS) break;
    ctx.logins.delete(old);
  }
  return { handle, credentialId: login.credentialId, type: login.type };
}

function loginOf(ctx: FrameContext, handle: unknown): OtpLogin {
  const login = typeof handle === 'string' ? ctx.logins.get(handle) : undefined;
  if (login === undefined) throw new WalletError('INVALID_ARGUMENT', 'no login under way with this handle in the signer frame');
  return login;
}

/**
 * The code entry for `login`: the user types the code in the frame; a wrong code is told there and
 * typed again. Resolves to the session; fails on a code that cannot work any more (OTP_EXPIRED),
 * the user's Cancel (SIGNER_DECLINED) or the parent's (ABORTED).
 */
function enterCode(ctx: FrameContext, handle: string, login: OtpLogin, signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(aborted());
    const strings = wordsOf(ctx).strings;
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

const arg = <T>(args: readonly unknown[], i: number): T => args[i] as T;

type Describe = (args: readonly unknown[], words: InWords) => ApprovalDescription;

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

/** The quote's id: the frame executes a quote it reads itself, never a payload the parent hands it. */
function quoteId(value: unknown): string {
  if (typeof value === 'string') return value;
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  if (typeof id !== 'string') throw new WalletError('INVALID_ARGUMENT', 'quoteOrId must be a quote id or a quote with its id');
  return id;
}

/** The customer `id` as the service answers the frame's own read, or undefined when it cannot be read. */
async function readCustomer(ctx: FrameContext, id: unknown): Promise<{ email?: string; phoneNumber?: string } | undefined> {
  if (typeof id !== 'string' || id === '') return undefined;
  try {
    const customer = await ctx.wallet[WALLET_CONTEXT].client.request<unknown>({ method: 'GET', path: `/customers/${encodeURIComponent(id)}` });
    if (!isRecord(customer) || customer.id !== id) return undefined;
    return { ...(typeof customer.email === 'string' ? { email: customer.email } : {}), ...(typeof customer.phoneNumber === 'string' ? { phoneNumber: customer.phoneNumber } : {}) };
  } catch {
    return undefined;
  }
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
  addSmsOtp: userAction('addSmsOtp', ['add-credential'], async (ctx, args) => keepLogin(ctx, await ctx.wallet.addSmsOtp(arg(args, 0)))),
  addEmailOtp: userAction('addEmailOtp', ['add-credential'], async (ctx, args) => keepLogin(ctx, await ctx.wallet.addEmailOtp(arg(args, 0)))),
  signOutOtherDevices: async (ctx, args, signal) => {
    // The frame lists the other devices' sessions itself (the service's list less the sessions it
    // holds); each end is then its own prompt, in words made from the very request it signs.
    const accountId = arg<string | undefined>(args, 0);
    const mine = new Set(ctx.wallet.sessions().map((s) => s.id));
    const others = (await ctx.wallet.listSessions(accountId)).filter((s) => !mine.has(s.id));
    const describe = (request: SignRequest) => wordsOf(ctx).endSession(request.method, request.path, others);
    return approveAction(ctx.policy, (DESCRIBE.signOutOtherDevices as Describe)(args, wordsOf(ctx)), ['delete-session'], signal, () => ctx.wallet.signOutOtherDevices(accountId), { describe });
  },
  deleteCredential: async (ctx, args, signal) => {
    // The frame lists the account's credentials itself (GET /auth/credentials, through the proxy),
    // so that the words name the one removed: its type, its email or phone masked, a passkey's name.
    // Decision: a list that cannot be read leaves the words with the id alone (the removal, signed
    // or not, is the service's to refuse); never a label from the parent.
    const listed = typeof args[0] === 'string' ? await ctx.wallet.listCredentials(arg(args, 1)).catch(() => []) : [];
    const description = wordsOf(ctx).deleteCredential(args[0], args[1], listed) ?? (DESCRIBE.deleteCredential as Describe)(args, wordsOf(ctx));
    return approveAction(ctx.policy, description, ['delete-credential'], signal, () => ctx.wallet.deleteCredential(arg(args, 0), arg(args, 1)));
  },
  createDelegatedKey: userAction('createDelegatedKey', ['create-delegated-key'], (ctx, args) => ctx.wallet.createDelegatedKey(arg(args, 0))),
  revokeDelegatedKey: userAction('revokeDelegatedKey', ['revoke-delegated-key'], (ctx, args) => ctx.wallet.revokeDelegatedKey(arg(args, 0), arg(args, 1))),
  updateAccount: userAction('updateAccount', ['update-internal-account'], (ctx, args) => ctx.wallet.updateAccount(arg(args, 0), arg(args, 1))),
  executeQuote: async (ctx, args, signal) => {
    // The frame reads the quote itself, describes it, and executes that very quote.
    const id = quoteId(args[0]);
    const quote = await ctx.wallet[WALLET_CONTEXT].client.request<unknown>({ method: 'GET', path: `/quotes/${encodeURIComponent(id)}` });
    if (!isRecord(quote) || quote.id !== id) throw new WalletError('BAD_RESPONSE', `expected the Quote ${id}`);
    // A quote the words cannot read (the service's answer, not the call's arguments) is shown as
    // "Unknown action" with its raw request where the host allows it (words-hookup.ts), else its
    // signature is refused (an option the action refuses fails first, with INVALID_ARGUMENT).
    const inWordsNow = wordsOf(ctx).executeQuote(id, quote, args[1]);
    const description = inWordsNow ?? (DESCRIBE.executeQuote as Describe)(args, wordsOf(ctx));
    const refused = inWordsNow === undefined ? new WalletError('SIGNING_REFUSED', `the signer cannot put quote ${id} in words, and its configuration does not allow unknown actions: nothing signed`) : undefined;
    // What it sends, for the host's high-value rule (approval-route.ts): from the quote the frame read.
    const currency = isRecord(quote.sendingCurrency) ? quote.sendingCurrency.code : undefined;
    const sending = typeof quote.totalSendingAmount === 'number' && typeof currency === 'string' ? { amount: quote.totalSendingAmount, currency } : undefined;
    // Its prompt expires when the quote does, at the latest (approval-route.ts `approvalDeadline`, on
    // the service's clock). Decision: a quote already expired on that clock is refused by the wallet's
    // executeQuote with QUOTE_EXPIRED before any request or prompt (src/actions/quotes.ts): the code
    // the app acts on (create a new quote); one that expires on the way to its prompt is not shown
    // (SIGNER_APPROVAL_EXPIRED, approval.ts). Either way nothing is signed.
    const expiresAt = typeof quote.expiresAt === 'string' ? quote.expiresAt : undefined;
    const facts = { ...(sending === undefined ? {} : { sending }), ...(refused === undefined ? {} : { refused }), ...(expiresAt === undefined ? {} : { expiresAt }) };
    return approveAction(ctx.policy, description, ['execute-quote'], signal, () => ctx.wallet.executeQuote(quote as unknown as Quote, arg(args, 1)), facts);
  },
  changeContact: async (ctx, args, signal) => {
    // Old → new: the frame reads the customer itself (GET /customers/{id}, spec §4.2). Decision: a
    // customer that cannot be read leaves the old value "not known" in the words (kinds.ts).
    const customer = await readCustomer(ctx, args[0]);
    const description = wordsOf(ctx).changeContact(args[0], args[1], args[2], customer) ?? (DESCRIBE.changeContact as Describe)(args, wordsOf(ctx));
    return approveAction(ctx.policy, description, ['change-contact'], signal, () => ctx.wallet.changeContact(arg(args, 0), arg(args, 1), arg(args, 2)));
  },
  ...PASSKEY_HANDLERS,
  ...OAUTH_HANDLERS,
  exportWallet: (ctx, args, signal) => exportInFrame(ctx, args, signal, { render: phraseRenderer(wordsOf(ctx).strings), clearAfterMs: ctx.exportClearAfterMs ?? EXPORT_CLEAR_AFTER_MS }),
};
