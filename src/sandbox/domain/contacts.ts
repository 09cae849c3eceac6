/**
 * Contacts tied to OTP credentials (wire-reference §8.2, spec §7.4): an email belongs to at most one
 * `EMAIL_OTP` credential and a phone number to at most one `SMS_OTP` credential across all
 * customers (`409 EMAIL_OTP_EMAIL_ALREADY_EXISTS` / `SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS`). Decided
 * here (the strict side): checked everywhere a contact gets tied — creating a customer (its wallet
 * gets an `EMAIL_OTP` credential), adding an OTP credential, and the contact change — not only on
 * the contact change. Emails compare case-insensitively.
 */
import type { SandboxState } from '../context.js';
import { conflict } from '../errors.js';
import type { AuthMethodRecord } from '../store.js';

export type Contact = 'email' | 'phoneNumber';
export const CONTACT = {
  email: { credential: 'EMAIL_OTP', exists: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', changed: 'EMAIL_OTP_CREDENTIAL_SET_CHANGED', verification: 'email' },
  phoneNumber: { credential: 'SMS_OTP', exists: 'SMS_OTP_PHONE_NUMBER_ALREADY_EXISTS', changed: 'SMS_OTP_CREDENTIAL_SET_CHANGED', verification: 'phone' },
} as const;

/** The customer's OTP credentials of the contact's type, ids sorted. */
export function tiedCredentials(state: SandboxState, customerId: string, contact: Contact): AuthMethodRecord[] {
  const walletIds = new Set(state.store.accountsOfCustomer(customerId).filter((a) => a.type === 'EMBEDDED_WALLET').map((a) => a.id));
  return [...state.store.authMethods.values()]
    .filter((m) => walletIds.has(m.accountId) && m.type === CONTACT[contact].credential)
    .sort((a, b) => a.id.localeCompare(b.id));
}

export function sameContact(a: string, b: string, contact: Contact): boolean {
  return contact === 'email' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** 409 `…_ALREADY_EXISTS` when another customer's wallet already ties `value` to an OTP credential. */
export function assertContactFree(state: SandboxState, customerId: string, contact: Contact, value: string): void {
  const mine = new Set(tiedCredentials(state, customerId, contact).map((m) => m.id));
  for (const m of state.store.authMethods.values()) {
    if (m.type === CONTACT[contact].credential && !mine.has(m.id) && sameContact(m.nickname, value, contact)) {
      throw conflict(CONTACT[contact].exists, `This ${contact === 'email' ? 'email' : 'phone number'} is already tied to another ${CONTACT[contact].credential} credential`);
    }
  }
}

