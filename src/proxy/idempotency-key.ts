/** S6 of scope.ts: the `Idempotency-Key` forwarded for a user's key, kept apart per customer and narrowing. */
import type { CurrentUser } from './ownership.js';

const LABEL = 'embedded-wallet-signer/proxy idempotency-key v1';

/** S6: the forwarded `Idempotency-Key` of a user's key. `secret` is the client secret. */
export function idempotencyKeys(secret: string): (user: Pick<CurrentUser, 'customerId' | 'accountIds'>, key: string) => Promise<string> {
  let derived: Promise<CryptoKey> | undefined;
  const hmacKey = (bytes: Uint8Array<ArrayBuffer>) => crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const encoder = new TextEncoder();
  return async (user, key) => {
    derived ??= (async () => {
      const root = await hmacKey(encoder.encode(secret));
      return hmacKey(new Uint8Array(await crypto.subtle.sign('HMAC', root, encoder.encode(LABEL))));
    })();
    // A wide user keeps the v1 input (customerId ‖ 0 ‖ key): no browser key holds a NUL, so the two shapes never meet.
    const narrowing = user.accountIds === undefined ? '' : `${JSON.stringify([...new Set(user.accountIds)].sort())}\u0000`;
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await derived, encoder.encode(`${user.customerId}\u0000${narrowing}${key}`)));
    let binary = '';
    for (const byte of mac) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
}
