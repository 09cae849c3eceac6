/** The signed actions (wired into the wallet facade in wallet.ts). */
export { changeContact, type ChangeContactOptions, type ContactChange } from './contact.js';
export { deleteCredential, listCredentials } from './credentials.js';
export {
  createDelegatedKey,
  getDelegatedKey,
  listDelegatedKeys,
  revokeDelegatedKey,
  type CreateDelegatedKeyArgs,
  type DelegatedKeyFilter,
} from './delegated-keys.js';
export { exportWallet } from './export.js';
export { updateAccount, type InternalAccountPatch } from './internal-account.js';
export { createQuote, executeQuote, walletPayloadOf, type CreateQuoteArgs, type ExecuteQuoteOptions } from './quotes.js';
