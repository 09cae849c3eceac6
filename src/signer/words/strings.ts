/**
 * Every word the signer frame and its windows show — the approval screen, the code entry, the
 * phrase screen, the approval and passkey windows, the plain fallbacks, their labels for screen
 * readers — in one table the signer's host can override (its language, its wording): `{name}`
 * placeholders are filled by the code that shows them. Only the host's configuration supplies
 * overrides (never the parent). No screen reads this default table itself: each is given the
 * host's merged table (`stringsWith(config.strings)`, main.ts); e2e/frame/portable/12-all-strings.spec.ts
 * checks that every visible text comes from it.
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
  identityProvider: 'Identity provider',
  providerAccount: 'Account there',
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
  payFrom: 'From',
  signingWallet: 'Signed with wallet',
  retryKey: 'Retry key',
  retryKeyWarning: 'A retry: if a payment was already made with this key, it is not made again.',
  changeContactTitle: 'Change your contact details',
  changeContactEmailWarning: 'Your sign-in codes by email go to the new address from now on.',
  changeContactPhoneWarning: 'Your sign-in codes by text message go to the new number from now on.',
  customer: 'Customer',
  /** The old value of a contact change the frame could not read: `{old}` of `change` (kinds.ts). */
  unknownValue: 'not known',
  notShown: 'not shown',
  // The approval screen's buttons (src/signer/frame/approval-screen.ts).
  approve: 'Approve',
  decline: 'Decline',
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
  /** The header's name when the host's configuration gives no `name` (src/signer/frame/config.ts). */
  walletName: 'Wallet',
  /**
   * The signer page's and its windows' document title ({name}: the host's `name`), set once the
   * configuration is read (views.ts `applyBranding`); the static page holds it filled with
   * `walletName` until then (src/signer/page/index.html, checked by test/signer/page-words.test.ts).
   */
  pageTitle: '{name}',
  // Buttons and words shared by the screens below.
  cancel: 'Cancel',
  continue: 'Continue',
  /** A line's label when a value has no field name (describe.ts' plain fallback). */
  value: 'Value',
  // The plain descriptions (src/signer/frame/describe.ts) where the words module cannot describe the call.
  addSmsOtpTitle: 'Add SMS codes as a sign-in method',
  addEmailOtpTitle: 'Add email codes as a sign-in method',
  signOutOthersTitle: 'Sign out your other devices',
  // The one-time-code entry (src/signer/frame/views.ts renderCodeEntry; methods.ts); {where} is otpWhereEmail or otpWherePhone.
  otpTitle: 'Enter your code',
  otpSentTo: 'We sent a code to {where}.',
  otpWhereEmail: 'your email',
  otpWherePhone: 'your phone',
  otpCode: 'Code',
  otpWrong: 'That code is not right. Type it again.',
  // The approval window (src/signer/frame/approval-popup.ts): the frame's side ({host}: the signer's host), then the window's.
  popupWhere: 'You approve this in a window of {host}, which no page can cover.',
  popupOpen: 'Open the approval window',
  popupShow: 'Show the approval window',
  popupWaiting: 'Waiting for your answer in the approval window…',
  windowIdleTitle: 'Nothing to do here',
  approvalWindowIdle: 'This window asks you to approve an action of the wallet that opened it.',
  approvalExpiredTitle: 'This request expired',
  approvalExpired: 'Nothing was signed. Close this window.',
  // Passkeys (src/signer/frame/passkeys.ts in the frame; popup.ts in the ceremony window, {host}: the signer's host).
  passkeyLoginTitle: 'Sign in with your passkey',
  passkeyCreateTitle: 'Create a passkey',
  addPasskeyTitle: 'Add a passkey as a sign-in method',
  passkeyWaiting: 'Waiting for your passkey…',
  passkeyAsks: '{host} asks your device for your passkey.',
  passkeyWindowIdle: 'This window runs a passkey for the wallet that opened it.',
  passkeyWindowTitle: 'Use your passkey in a new window',
  passkeyWindowWhy: 'Why',
  passkeyWindowReason: 'This browser did not let the passkey run inside this page.',
  passkeyWindowOpen: 'Open window',
} as const;

/**
 * The language the default table is written in (a BCP 47 tag): the signer page's `lang` until the
 * configuration is read, and after it unless the host names the language of its own texts
 * (signer-config.json `language`, else its `locale`: config.ts `pageLanguage`).
 */
export const DEFAULT_LANGUAGE = 'en';

/** The key of a text of the table. */
export type StringKey = keyof typeof DEFAULT_STRINGS;
/** The whole table of texts, one per key. */
export type Strings = Readonly<Record<StringKey, string>>;

/** The `{name}` placeholders of `template`, sorted, each once. */
export function placeholders(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(/\{(\w+)\}/g), (m) => m[1] as string))].sort();
}

/**
 * The host's overrides (its `strings`), checked: an object whose keys are keys of the table and whose
 * values are non-empty strings holding exactly the placeholders of the default. Decision: exactly,
 * not "at least": a placeholder left out hides a value the describer fills (how many sessions end,
 * the rate), and one added is shown as typed (`fill` leaves unknown names), so either is refused
 * at load. Throws an Error naming the first bad key.
 */
export function checkStringOverrides(raw: unknown): Partial<Strings> {
  const fail = (what: string): never => {
    throw new Error(`signer-config.json: strings${what}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(' must be an object of texts by key');
  const out: Partial<Record<StringKey, string>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!Object.hasOwn(DEFAULT_STRINGS, key)) fail(`.${key} is not a text of the signer (see DEFAULT_STRINGS in src/signer/words/strings.ts)`);
    if (typeof value !== 'string' || value.trim() === '') fail(`.${key} must be a non-empty string`);
    const wanted = placeholders(DEFAULT_STRINGS[key as StringKey]);
    const given = placeholders(value as string);
    if (wanted.join() !== given.join()) fail(`.${key} must hold exactly the placeholders ${wanted.length === 0 ? '(none)' : wanted.map((n) => `{${n}}`).join(' ')}, found ${given.length === 0 ? '(none)' : given.map((n) => `{${n}}`).join(' ')}`);
    out[key as StringKey] = value as string;
  }
  return out;
}

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
