/**
 * What the frame's handlers share (methods.ts, prompts.ts, passkeys.ts): the frame's own wallet and
 * signing policy, the logins under way, and the host's words configuration. A module of its own so
 * that the handlers loaded on first use (prompts.ts, passkeys.ts) and the entry's table (methods.ts)
 * import it without importing each other.
 */
import { WalletError } from '../../errors.js';
import type { OtpLogin } from '../../flows/otp.js';
import type { Wallet } from '../../wallet-api.js';
import type { SigningPolicy } from './approval.js';
import { stringsWith, type Strings } from '../words/strings.js';
import type { WordsOptions } from '../words/types.js';

export interface FrameContext {
  readonly wallet: Wallet;
  readonly policy: SigningPolicy;
  /** Logins under way, by the handle the parent holds (the login object never leaves the frame). */
  readonly logins: Map<string, OtpLogin>;
  /** The UI changed (a screen opened or closed). */
  readonly screensChanged: () => void;
  /** How long an export's phrase stays on screen (the host's `exportClearAfterMs`); default 60 s. */
  readonly exportClearAfterMs?: number;
  /** The host's strings, locale, time zone and `allowUnknown` (its configuration only); default the table's and the runtime's. */
  readonly words?: WordsOptions;
}

/** The host's table of strings (its overrides on the defaults): every screen's words. */
export const stringsOf = (ctx: { readonly words?: WordsOptions | undefined }): Strings => stringsWith(ctx.words?.strings);

/** Logins kept at once; the oldest is forgotten past it. */
const MAX_LOGINS = 8;

/** Keeps `login` under a fresh handle; the parent gets the handle and the public facts. */
export function keepLogin(ctx: FrameContext, login: OtpLogin): { handle: string; credentialId: string; type: string } {
  const handle = crypto.randomUUID();
  ctx.logins.set(handle, login);
  for (const old of ctx.logins.keys()) {
    if (ctx.logins.size <= MAX_LOGINS) break;
    ctx.logins.delete(old);
  }
  return { handle, credentialId: login.credentialId, type: login.type };
}

export function loginOf(ctx: FrameContext, handle: unknown): OtpLogin {
  const login = typeof handle === 'string' ? ctx.logins.get(handle) : undefined;
  if (login === undefined) throw new WalletError('INVALID_ARGUMENT', 'no login under way with this handle in the signer frame');
  return login;
}

/** The call's `i`th argument, as the wallet method it goes to takes it (each checks its own: INVALID_ARGUMENT). */
export const arg = <T>(args: readonly unknown[], i: number): T => args[i] as T;

/** `args.accountId` of a call that names the wallet (a passkey's, an OAuth credential's): a non-empty string, else INVALID_ARGUMENT. */
export function accountOf(value: unknown): string {
  const id = typeof value === 'object' && value !== null ? (value as { accountId?: unknown }).accountId : undefined;
  if (typeof id !== 'string' || id === '') throw new WalletError('INVALID_ARGUMENT', 'args.accountId must be a non-empty string');
  return id;
}
