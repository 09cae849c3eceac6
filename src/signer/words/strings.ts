/**
 * Every word the approval screen shows, in one table the signer's host can override (its language,
 * its wording): `{name}` placeholders are filled by the describers. Only the host's configuration
 * supplies overrides (never the parent).
 */
export const DEFAULT_STRINGS = {
  unknownTitle: 'Unknown action',
  unknownWarning: 'This app asks you to sign a request the wallet cannot put in words. Approve it only if you know what it does.',
  request: 'Request',
  warning: 'Note',
  body: 'Body',
  account: 'Wallet',
  addCredentialTitle: 'Add a sign-in method',
  removeCredentialTitle: 'Remove a sign-in method',
  credentialType: 'Type',
  credential: 'Sign-in method',
  email: 'Email',
  phone: 'Phone',
  nickname: 'Name',
  EMAIL_OTP: 'Codes sent by email',
  SMS_OTP: 'Codes sent by text message',
  OAUTH: 'Sign-in with an identity provider',
  PASSKEY: 'Passkey',
  removeCredentialWarning: 'Its sessions end with it.',
  endSessionsTitle: 'Sign out devices',
  endSessionTitle: 'Sign out a device',
  sessions: 'Sessions',
  allOtherDevices: 'All other devices ({count})',
  someSessions: '{count} session(s)',
  session: 'Session',
  sessionPlace: 'Device',
  sessionPlaceValue: '{index} of {count}',
  signedInWith: 'Signed in with',
  signedInOn: 'Signed in on',
  endSessionsWarning: 'Each device is signed out only once you approve it here. Those devices must sign in again; this one stays signed in.',
  updateAccountTitle: 'Change your wallet settings',
  privateEnabled: 'Private mode',
  on: 'On',
  off: 'Off',
  change: '{old} → {new}',
  setTo: '→ {new}',
  exportTitle: 'Reveal your recovery phrase',
  exportReveals: 'Reveals',
  exportWhat: 'Your recovery phrase: anyone who sees it can take the funds in this wallet.',
  exportWarning: 'This cannot be undone: once shown, the phrase stays valid.',
  exportKey: 'Encrypted to',
  createDelegatedKeyTitle: 'Let a card spend from your wallet',
  revokeDelegatedKeyTitle: 'Stop a card spending from your wallet',
  card: 'Card',
  delegatedKey: 'Card key',
  limits: 'Limits',
  limitsNone: 'None set by this request: the card can spend what the wallet holds',
  expiry: 'Valid',
  untilRevoked: 'Until you revoke it',
  executeQuoteTitle: 'Send a payment',
  youSend: 'You send',
  theyReceive: 'They receive',
  destination: 'To',
  rate: 'Rate',
  rateValue: '1 {from} = {rate} {to}',
  fees: 'Fees',
  platformFees: 'Platform fees',
  quoteExpires: 'Offer ends',
  quote: 'Quote',
  changeContactTitle: 'Change your contact details',
  customer: 'Customer',
  unknownValue: 'unknown',
  notShown: 'not shown',
  // The export's phrase screen (src/signer/frame/export-view.ts).
  phraseTitle: 'Your recovery phrase',
  phraseHidden: 'Hidden. Make sure no one can see your screen, then reveal it.',
  phraseWarning: 'Anyone who sees these words can take the funds in this wallet. Never share them.',
  phraseClears: 'This screen clears itself after {seconds} s.',
  phraseReveal: 'Reveal',
  phraseHide: 'Hide',
  phraseCopy: 'Copy',
  phraseCopied: 'Copied',
  phraseCopyFailed: 'Could not copy: write the words down instead.',
  phraseClose: 'Done',
  // The guarded buttons (src/signer/frame/approve-button.ts): "Approve", the phrase screen's "Reveal"
  // and "Copy"; {button} is the button's label.
  guardClickAgain: 'Click {button} again.',
  guardKeyboard: 'To use the keyboard, move to {button} with Tab, then press Enter.',
  guardHold: 'On a touch screen, touch and hold {button} until it fills, then lift your finger.',
  guardHolding: 'Keep holding {button}…',
  guardHeld: 'Lift your finger now.',
} as const;

export type StringKey = keyof typeof DEFAULT_STRINGS;
export type Strings = Readonly<Record<StringKey, string>>;

/** The table with the host's overrides applied (keys it does not know are ignored). */
export function stringsWith(overrides: Partial<Record<string, unknown>> = {}): Strings {
  const out: Record<string, string> = { ...DEFAULT_STRINGS };
  for (const key of Object.keys(DEFAULT_STRINGS)) {
    const value = overrides[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out as Strings;
}

/** `template` with each `{name}` replaced by `values[name]` (unknown names stay as they are). */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? (values[name] as string) : whole));
}
