/**
 * What a prompt needs, loaded on the first one (a chunk of the signer page, not in its startup
 * script: the frame's first paint, its handshake and the session restore need none of it): the
 * user actions (each described in words, run in the signing policy's scope, a click per
 * signature: approval.ts), the words (src/signer/words, words-hookup.ts, describe.ts), the export
 * and its phrase screen, and the approval screens the policy draws its prompts with
 * ({@link screensIn}). methods.ts forwards each of {@link PROMPTED}'s calls here; the policy loads
 * {@link screensIn} when an approval opens, before anything is sent (approval.ts). A failed load is
 * NETWORK_ERROR (load-on-first-use.ts): no prompt, nothing sent, nothing signed.
 */
import { WalletError } from '../../errors.js';
import { isRecord, type Quote } from '../../types.js';
import { WALLET_CONTEXT } from '../../session/context.js';
import type { FrameMethod } from '../protocol.js';
import type { SignRequest } from '../../transport/index.js';
import type { Strings } from '../words/strings.js';
import { approveAction, type ApprovalDescription, type ApprovalScreens } from './approval.js';
import { popupApprovalIn } from './approval-popup.js';
import { approvalRenderer } from './approval-screen.js';
import { EXPORT_CLEAR_AFTER_MS } from './config.js';
import { accountOf, arg, keepLogin, type FrameContext } from './context.js';
import { DESCRIBE } from './describe.js';
import { exportInFrame } from './export.js';
import { phraseRenderer } from './export-view.js';
import { wordsOf, type InWords } from './words-hookup.js';

/** The approval screens in `strings` (the host's table): the frame's own, and the approval window's. */
export const screensIn = (strings: Strings): ApprovalScreens => ({ render: approvalRenderer(strings), popup: popupApprovalIn(strings) });

type Handler = (ctx: FrameContext, args: readonly unknown[], signal: AbortSignal) => Promise<unknown>;

type Describe = (args: readonly unknown[], words: InWords) => ApprovalDescription;

/** A user action: described, run in the policy's scope, a click per signature. */
function userAction(method: FrameMethod, purposes: readonly string[], run: (ctx: FrameContext, args: readonly unknown[]) => Promise<unknown>): Handler {
  const describe = DESCRIBE[method];
  if (describe === undefined) throw new Error(`no description for ${method}`);
  return (ctx, args, signal) => approveAction(ctx.policy, describe(args, wordsOf(ctx)), purposes, signal, () => run(ctx, args));
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

/** The frame's methods that open a prompt (methods.ts forwards them here). */
export type PromptedMethod =
  | 'addSmsOtp'
  | 'addEmailOtp'
  | 'signOutOtherDevices'
  | 'deleteCredential'
  | 'createDelegatedKey'
  | 'revokeDelegatedKey'
  | 'updateAccount'
  | 'executeQuote'
  | 'changeContact'
  | 'addOAuthCredential'
  | 'exportWallet';

export const PROMPTED: Readonly<Record<PromptedMethod, Handler>> = {
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
  /** Adding an OAUTH credential (oauth.ts has the login's side): a user action approved in the frame (its `add-credential` signature). */
  addOAuthCredential: async (ctx, args, signal) => {
    accountOf(args[0]);
    // In words from the request the action sends, with whom its token names (security review C3).
    const description = wordsOf(ctx).addOAuth(args[0]);
    if (description === undefined) throw new WalletError('INVALID_ARGUMENT', 'args.oidcToken must be an ID token (a JWT) naming its issuer and an email or a subject');
    return approveAction(ctx.policy, description, ['add-credential'], signal, () => ctx.wallet.addOAuthCredential(args[0] as { accountId: string; oidcToken: string }));
  },
  exportWallet: (ctx, args, signal) => exportInFrame(ctx, args, signal, { render: phraseRenderer(wordsOf(ctx).strings), clearAfterMs: ctx.exportClearAfterMs ?? EXPORT_CLEAR_AFTER_MS }),
};
