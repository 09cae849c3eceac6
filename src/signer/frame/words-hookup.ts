/**
 * The approval screen's words (src/signer/words) for the user actions whose request the frame can
 * build from the call's own arguments exactly as the action sends it: the same method, path and
 * body. Each returns undefined when the words module cannot describe the arguments (they are then
 * not a request the action would send: the action's own check refuses them with INVALID_ARGUMENT
 * before anything is signed), and describe.ts shows its plain description instead.
 * Not yet in words here: adding OTP credentials and signing out other devices (their request needs
 * the session's account and the session list), executing a quote (the quote is read inside the
 * action). Export builds its request in export.ts (the key it names is made there) and asks here.
 */
import { isRecord } from '../../types.js';
import { describeSignedRequest, toApprovalLines, type SignedRequest } from '../words/index.js';
import type { ApprovalDescription } from './approval.js';

const seg = (id: unknown): string | undefined => (typeof id === 'string' && id !== '' ? encodeURIComponent(id) : undefined);

function words(request: SignedRequest | undefined): ApprovalDescription | undefined {
  if (request === undefined) return undefined;
  try {
    return toApprovalLines(describeSignedRequest(request));
  } catch {
    return undefined;
  }
}

export const inWords = {
  updateAccount: (id: unknown, patch: unknown) => {
    const at = seg(id);
    return words(at === undefined ? undefined : { method: 'PATCH', path: `/internal-accounts/${at}`, body: patch });
  },
  deleteCredential: (credentialId: unknown) => {
    const at = seg(credentialId);
    return words(at === undefined ? undefined : { method: 'DELETE', path: `/auth/credentials/${at}` });
  },
  createDelegatedKey: (args: unknown) =>
    words(isRecord(args) ? { method: 'POST', path: '/auth/delegated-keys', body: { cardId: args.cardId, internalAccountId: args.internalAccountId, nickname: args.nickname } } : undefined),
  revokeDelegatedKey: (keyId: unknown) => {
    const at = seg(keyId);
    return words(at === undefined ? undefined : { method: 'DELETE', path: `/auth/delegated-keys/${at}` });
  },
  changeContact: (customerId: unknown, change: unknown) => {
    const at = seg(customerId);
    return words(at === undefined ? undefined : { method: 'PATCH', path: `/customers/${at}`, body: change });
  },
  /** The export's request as export.ts sends it: `path` from the action's own `exportPath`. */
  exportWallet: (path: string, clientPublicKey: string) => words({ method: 'POST', path, body: { clientPublicKey } }),
};
