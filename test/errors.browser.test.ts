import { expect, it } from 'vitest';
import { WalletError, isWalletError } from '../src/errors.js';

it('recognises a WalletError thrown in another realm (iframe)', async () => {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const otherRealm = frame.contentWindow as unknown as { Error: ErrorConstructor; Object: ObjectConstructor };
  // Build an error in the iframe's realm the way a second bundle copy would: its own class.
  const foreign = new otherRealm.Error('from the frame') as Error & { code: string };
  Object.defineProperty(foreign, 'name', { value: 'WalletError' });
  foreign.code = 'SESSION_EXPIRED';
  expect(foreign instanceof Error).toBe(false);
  expect(isWalletError(foreign, 'SESSION_EXPIRED')).toBe(true);
  expect(isWalletError(new WalletError('TIMEOUT'))).toBe(true);
  frame.remove();
});
