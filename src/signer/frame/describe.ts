/**
 * The approval screen's description of each user action, made by the frame from the call it is
 * about to make (its own arguments, checked), never from labels the parent sends. Plain for now:
 * what the action is and the values it sends (issue 33 puts every action in words).
 */
import type { ApprovalDescription } from './approval.js';
import { inWords, type InWords } from './words-hookup.js';

/** A value as the screen shows it: strings as they are, anything else as compact JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

/** The fields of a plain object argument as lines (`label: value`). */
function fields(value: unknown): [string, string][] {
  if (typeof value !== 'object' || value === null) return value === undefined ? [] : [['Value', show(value)]];
  return Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, show(v)]);
}

const account = (id: unknown): [string, string][] => (id === undefined ? [] : [['Account', show(id)]]);

/** The description of each interactive method that signs a user action, in `words` (the host's strings and locale; default the table's). */
export const DESCRIBE: Readonly<Record<string, (args: readonly unknown[], words?: InWords) => ApprovalDescription>> = {
  updateAccount: ([id, patch], w = inWords) => w.updateAccount(id, patch) ?? ({ title: 'Change your account settings', lines: [...account(id), ...fields(patch)] }),
  deleteCredential: ([credentialId, id], w = inWords) => w.deleteCredential(credentialId, id) ?? ({ title: 'Remove a sign-in method', lines: [['Credential', show(credentialId)], ...account(id)] }),
  addSmsOtp: ([args], w = inWords) => w.addOtp('SMS_OTP', args) ?? ({ title: 'Add SMS codes as a sign-in method', lines: fields(args) }),
  addEmailOtp: ([args], w = inWords) => w.addOtp('EMAIL_OTP', args) ?? ({ title: 'Add email codes as a sign-in method', lines: fields(args) }),
  signOutOtherDevices: ([id]) => ({ title: 'Sign out your other devices', lines: account(id) }),
  createDelegatedKey: ([args], w = inWords) => w.createDelegatedKey(args) ?? ({ title: 'Let a card spend from your wallet', lines: fields(args) }),
  revokeDelegatedKey: ([keyId, id], w = inWords) => w.revokeDelegatedKey(keyId, id) ?? ({ title: 'Stop a card spending from your wallet', lines: [['Delegated key', show(keyId)], ...account(id)] }),
  executeQuote: ([quote, options]) => ({ title: 'Send a payment', lines: [['Quote', show(typeof quote === 'object' && quote !== null ? (quote as { id?: unknown }).id : quote)], ...fields(options)] }),
  changeContact: ([customerId, change, options], w = inWords) => w.changeContact(customerId, change, options) ?? ({ title: 'Change your contact details', lines: [['Customer', show(customerId)], ...fields(change)] }),
};
