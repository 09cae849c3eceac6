/**
 * The approval screen's words (src/signer/words) for the user actions whose request the frame can
 * build from the call's own arguments exactly as the action sends it: the same method, path and
 * body. Each returns undefined when the words module cannot describe the arguments (they are then
 * not a request the action would send: the action's own check refuses them with INVALID_ARGUMENT
 * before anything is signed), and describe.ts shows its plain description instead.
 * Executing a quote is described from the quote the frame read itself (prompts.ts), which is the
 * quote it then executes. Export builds its request in export.ts (the key it names is made there)
 * and asks here. Signing out other devices is described per request (each session it ends), from
 * the request's own path and the session list the frame read itself ({@link inWords.endSession}).
 */
import { isRecord } from '../../types.js';
import { describeSignedRequest, stringsWith, toApprovalLines, type KnownFacts, type SignedRequest, type WordsOptions } from '../words/index.js';
import type { ApprovalDescription } from './approval.js';

const seg = (id: unknown): string | undefined => (typeof id === 'string' && id !== '' ? encodeURIComponent(id) : undefined);

/** The wallet a call names to sign with, as a fact (a value the action would refuse names none: it refuses it before signing). */
const signing = (accountId: unknown): KnownFacts => (typeof accountId === 'string' && accountId !== '' ? { signingAccount: accountId } : {});

/**
 * The words of each action in the host's strings, locale and time zone (`options`, from its
 * configuration: config.ts; never from the parent).
 */
export function inWordsWith(options: WordsOptions) {
  const words = (request: SignedRequest | undefined, facts?: KnownFacts): ApprovalDescription | undefined => {
    if (request === undefined) return undefined;
    try {
      return toApprovalLines(describeSignedRequest(request, facts, options), options);
    } catch {
      return undefined;
    }
  };
  return {
    /** The host's whole table (the defaults with its overrides): every other screen's words. */
    strings: stringsWith(options.strings),
    updateAccount: (id: unknown, patch: unknown) => {
      const at = seg(id);
      return words(at === undefined ? undefined : { method: 'PATCH', path: `/internal-accounts/${at}`, body: patch });
    },
    /**
     * `accountId`: the wallet whose session signs, when the caller names it; `listed`: the
     * credentials the frame read itself (GET /auth/credentials): the one of this id names its type
     * and contact.
     */
    deleteCredential: (credentialId: unknown, accountId?: unknown, listed: readonly { readonly id: string; readonly type?: string; readonly nickname?: string }[] = []) => {
      const at = seg(credentialId);
      const found = listed.find((c) => c.id === credentialId);
      const credential = found === undefined ? {} : { credential: { ...(found.type !== undefined ? { type: found.type } : {}), ...(found.nickname !== undefined ? { nickname: found.nickname } : {}) } };
      return words(at === undefined ? undefined : { method: 'DELETE', path: `/auth/credentials/${at}` }, { ...signing(accountId), ...credential });
    },
    createDelegatedKey: (args: unknown) =>
      words(isRecord(args) ? { method: 'POST', path: '/auth/delegated-keys', body: { cardId: args.cardId, internalAccountId: args.internalAccountId, nickname: args.nickname } } : undefined),
    revokeDelegatedKey: (keyId: unknown, accountId?: unknown) => {
      const at = seg(keyId);
      return words(at === undefined ? undefined : { method: 'DELETE', path: `/auth/delegated-keys/${at}` }, signing(accountId));
    },
    /**
     * `options.accountId`: the wallet whose session signs, when the caller names it; `customer`:
     * the customer as the frame read it itself (GET /customers/{id}), for old → new (undefined: not read).
     */
    changeContact: (customerId: unknown, change: unknown, options?: unknown, customer?: { readonly email?: string; readonly phoneNumber?: string }) => {
      const at = seg(customerId);
      const read = customer === undefined ? {} : { customer: { ...(typeof customer.email === 'string' ? { email: customer.email } : {}), ...(typeof customer.phoneNumber === 'string' ? { phoneNumber: customer.phoneNumber } : {}) } };
      return words(at === undefined ? undefined : { method: 'PATCH', path: `/customers/${at}`, body: change }, { ...signing(isRecord(options) ? options.accountId : undefined), ...read });
    },
    /**
     * Ending one of the other devices' sessions: `path` is the request the library is about to sign
     * (`DELETE /auth/sessions/{id}`); `others` the sessions the frame listed as the other devices'.
     */
    endSession: (method: string, path: string, others: readonly { readonly id: string; readonly type?: string; readonly nickname?: string; readonly createdAt?: string }[]) => {
      const prefix = '/auth/sessions/';
      let id: string | undefined;
      try {
        id = path.startsWith(prefix) ? decodeURIComponent(path.slice(prefix.length)) : undefined;
      } catch {
        id = undefined;
      }
      const at = others.findIndex((o) => o.id === id);
      const ending = others[at];
      const sessions = { count: Math.max(others.length, 1), allOtherDevices: true, ...(ending === undefined ? {} : { ending, index: at + 1 }) };
      return words({ method, path }, { sessions });
    },
    /** The export's request as export.ts sends it: `path` from the action's own `exportPath`. */
    exportWallet: (path: string, clientPublicKey: string) => words({ method: 'POST', path, body: { clientPublicKey } }),
    /** Adding an OTP credential: the action sends exactly `{ type, accountId }` (flows/otp.ts). */
    addOtp: (type: 'EMAIL_OTP' | 'SMS_OTP', args: unknown) =>
      words(isRecord(args) && typeof args.accountId === 'string' ? { method: 'POST', path: '/auth/credentials', body: { type, accountId: args.accountId } } : undefined),
    /**
     * Executing `quote`, read by the frame itself for this very id (the describer checks the id),
     * with the call's `options` as the action reads them: its `Idempotency-Key` and the wallet that signs.
     */
    executeQuote: (id: string, quote: unknown, options?: unknown) => {
      const at = seg(id);
      if (options !== undefined && !isRecord(options)) return undefined;
      const { idempotencyKey, accountId } = options ?? {};
      if ((idempotencyKey !== undefined && typeof idempotencyKey !== 'string') || (accountId !== undefined && typeof accountId !== 'string')) return undefined;
      const request = { method: 'POST', path: `/quotes/${at}/execute`, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) };
      return words(at === undefined || !isRecord(quote) ? undefined : request, { quote: quote as KnownFacts['quote'] & object, ...(accountId !== undefined ? { signingAccount: accountId } : {}) });
    },
    /** Adding an OAUTH credential: the action sends exactly `{ type, accountId, oidcToken }` (flows/oauth.ts). */
    addOAuth: (args: unknown) =>
      words(isRecord(args) && typeof args.accountId === 'string' ? { method: 'POST', path: '/auth/credentials', body: { type: 'OAUTH', accountId: args.accountId, oidcToken: args.oidcToken } } : undefined),
  };
}

export type InWords = ReturnType<typeof inWordsWith>;

/** The words in the default strings and the runtime's locale. */
export const inWords: InWords = inWordsWith({});

/** The words made once per configuration (a frame has one: its context's). */
const made = new WeakMap<WordsOptions, InWords>();

/** The words of a frame's context: the host's strings, locale and time zone (its configuration); default the table's. */
export function wordsOf(ctx: { readonly words?: WordsOptions | undefined }): InWords {
  const options = ctx.words;
  if (options === undefined) return inWords;
  let words = made.get(options);
  if (words === undefined) {
    words = inWordsWith(options);
    made.set(options, words);
  }
  return words;
}
