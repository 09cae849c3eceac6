/**
 * The approval screen's description of each user action, made by the frame from the call it is
 * about to make (its own arguments, checked), never from labels the parent sends. Plain for now:
 * what the action is and the values it sends (issue 33 puts every action in words).
 */
import type { ApprovalDescription } from './approval.js';
import type { Strings } from '../words/strings.js';
import { inWords, type InWords } from './words-hookup.js';

/** A value as the screen shows it: strings as they are, anything else as compact JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

/** The fields of a plain object argument as lines (`label: value`; a value that is no object under the table's `value`). */
function fields(value: unknown, s: Strings): [string, string][] {
  if (typeof value !== 'object' || value === null) return value === undefined ? [] : [[s.value, show(value)]];
  return Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, show(v)]);
}

const account = (id: unknown, s: Strings): [string, string][] => (id === undefined ? [] : [[s.account, show(id)]]);

/**
 * The description of each interactive method that signs a user action, in `words` (the host's
 * strings and locale; default the table's). Where the words module cannot describe the call, a
 * plain one: a title and labels from the same table, the call's own values (and a patch's field
 * names) as they are.
 */
export const DESCRIBE: Readonly<Record<string, (args: readonly unknown[], words?: InWords) => ApprovalDescription>> = {
  updateAccount: ([id, patch], w = inWords) => w.updateAccount(id, patch) ?? { title: w.strings.updateAccountTitle, lines: [...account(id, w.strings), ...fields(patch, w.strings)] },
  deleteCredential: ([credentialId, id], w = inWords) => w.deleteCredential(credentialId, id) ?? { title: w.strings.removeCredentialTitle, lines: [[w.strings.credential, show(credentialId)], ...account(id, w.strings)] },
  addSmsOtp: ([args], w = inWords) => w.addOtp('SMS_OTP', args) ?? { title: w.strings.addSmsOtpTitle, lines: fields(args, w.strings) },
  addEmailOtp: ([args], w = inWords) => w.addOtp('EMAIL_OTP', args) ?? { title: w.strings.addEmailOtpTitle, lines: fields(args, w.strings) },
  signOutOtherDevices: ([id], w = inWords) => ({ title: w.strings.signOutOthersTitle, lines: account(id, w.strings) }),
  createDelegatedKey: ([args], w = inWords) => w.createDelegatedKey(args) ?? { title: w.strings.createDelegatedKeyTitle, lines: fields(args, w.strings) },
  revokeDelegatedKey: ([keyId, id], w = inWords) => w.revokeDelegatedKey(keyId, id) ?? { title: w.strings.revokeDelegatedKeyTitle, lines: [[w.strings.delegatedKey, show(keyId)], ...account(id, w.strings)] },
  executeQuote: ([quote, options], w = inWords) => ({ title: w.strings.executeQuoteTitle, lines: [[w.strings.quote, show(typeof quote === 'object' && quote !== null ? (quote as { id?: unknown }).id : quote)], ...fields(options, w.strings)] }),
  changeContact: ([customerId, change, options], w = inWords) => w.changeContact(customerId, change, options) ?? { title: w.strings.changeContactTitle, lines: [[w.strings.customer, show(customerId)], ...fields(change, w.strings)] },
};
