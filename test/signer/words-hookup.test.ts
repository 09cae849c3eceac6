/** The frame's approval descriptions of the actions it can build the request for are the words module's. */
import { describe, expect, it } from 'vitest';
import { DESCRIBE } from '../../src/signer/frame/describe.js';

describe('the frame describes its user actions in words', () => {
  it('each action whose request the frame builds from its arguments', () => {
    expect(DESCRIBE.updateAccount?.(['InternalAccount:a', { privateEnabled: true }])).toEqual({ title: 'Change your wallet settings', lines: [['Private mode', '→ On'], ['Wallet', 'InternalAccount:a']] });
    expect(DESCRIBE.deleteCredential?.(['AuthMethod:1'])?.title).toBe('Remove a sign-in method');
    expect(DESCRIBE.createDelegatedKey?.([{ cardId: 'Card:1', internalAccountId: 'InternalAccount:a', nickname: 'Groceries' }])?.lines).toContainEqual(['Valid', 'Until you revoke it']);
    expect(DESCRIBE.revokeDelegatedKey?.(['DelegatedKey:2'])?.lines).toEqual([['Card key', 'DelegatedKey:2']]);
    expect(DESCRIBE.changeContact?.(['Customer:3', { phoneNumber: '+15551234567' }])?.lines).toEqual([['Phone', '→ +15551234567'], ['Customer', 'Customer:3']]);
  });

  it('arguments no action would send keep the plain description (the action refuses them before signing)', () => {
    expect(DESCRIBE.updateAccount?.(['InternalAccount:a', { nickname: 'x' }])?.title).toBe('Change your account settings');
    expect(DESCRIBE.changeContact?.(['Customer:3', { email: 'a@b.c', phoneNumber: '+1555' }])?.lines).toContainEqual(['email', 'a@b.c']);
  });
});
