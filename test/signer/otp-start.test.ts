// What the signer frame takes as `startOtpLogin`'s argument (src/signer/frame/methods.ts,
// otpStartArgs; THREAT-MODEL.md P4): exactly `{ email }`, `{ phone }` or `{ accountId, type?,
// credentialId? }`, non-empty strings of at most 320 characters, as the call's only argument.
// fast-check draws near-valid and arbitrary arguments; the oracle is written out by the shapes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWalletError } from '../../src/errors.js';
import { otpStartArgs } from '../../src/signer/frame/methods.js';

const SHAPES = [['email'], ['phone'], ['accountId'], ['accountId', 'type'], ['accountId', 'credentialId'], ['accountId', 'credentialId', 'type']];

/** The oracle: the argument list is accepted exactly when this says so. */
function accepted(args: unknown[]): boolean {
  if (args.length !== 1) return false;
  const v = args[0];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v).sort();
  if (!SHAPES.some((shape) => shape.join() === keys.join())) return false;
  return Object.values(v).every((x) => typeof x === 'string' && x.length >= 1 && x.length <= 320);
}

function outcome(args: unknown[]): boolean {
  try {
    return otpStartArgs(args) === args[0];
  } catch (error) {
    if (!isWalletError(error, 'INVALID_ARGUMENT')) throw error;
    return false;
  }
}

const field = fc.oneof(fc.string({ maxLength: 4 }), fc.string({ minLength: 318, maxLength: 322 }), fc.integer(), fc.constant(null), fc.constant(undefined), fc.array(fc.string(), { maxLength: 1 }));
const key = fc.constantFrom('email', 'phone', 'accountId', 'type', 'credentialId', 'code', '__proto__', 'Email');
const nearValid = fc.dictionary(key, field, { maxKeys: 4 });

describe('otpStartArgs (the frame’s check of startOtpLogin)', () => {
  it('the three shapes pass as given', () => {
    for (const arg of [{ email: 'ada@example.com' }, { phone: '+14155550123' }, { accountId: 'InternalAccount:1' }, { accountId: 'InternalAccount:1', type: 'SMS_OTP', credentialId: 'AuthMethod:2' }]) {
      expect(otpStartArgs([arg])).toBe(arg);
    }
  });

  it('refuses a code, two contacts, an extra key, an empty or long field, a second argument, no argument', () => {
    for (const args of [[{ email: 'a@b.c', code: '000000' }], [{ email: 'a@b.c', phone: '+1' }], [{ accountId: 'A', email: 'a@b.c' }], [{ email: '' }], [{ email: 'x'.repeat(321) }], [{ email: 'a@b.c' }, 'x'], [], [null], ['a@b.c']]) {
      expect(outcome(args)).toBe(false);
    }
  });

  it('accepts exactly what the oracle accepts (near-valid and arbitrary arguments)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(nearValid), fc.array(fc.oneof(nearValid, fc.anything()), { maxLength: 2 })), (args) => {
        expect(outcome(args)).toBe(accepted(args));
      }),
      { numRuns: 2000 },
    );
  });
});
