// What an error becomes on its way up to the parent (src/signer/frame/serve.ts toWire,
// THREAT-MODEL.md P2): code, message, status and plain details only. fast-check draws errors of
// every kind carrying a secret in their cause, stack and extra fields; the oracle: the secret never
// appears in what goes up, and an error that is not a WalletError goes up with a fixed message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WalletError } from '../../src/errors.js';
import { toWire } from '../../src/signer/frame/serve.js';
import { plainSize } from '../../src/signer/protocol.js';

const SECRET = 'mnemonic-or-code-7f3a9c';

describe('toWire', () => {
  it('keeps only code, message, status and plain details; never the cause or the stack', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }), fc.boolean(), (code, message, status, withDetails) => {
        const error = new WalletError(code, message, { cause: new Error(SECRET), ...(status !== undefined ? { status } : {}), ...(withDetails ? { details: { attemptsLeft: 2 } } : {}) });
        Object.assign(error, { extra: SECRET });
        error.stack = `${SECRET}\n at somewhere`;
        const wire = toWire(error);
        expect(Object.keys(wire).sort()).toEqual(['code', 'message', ...(status !== undefined ? ['status'] : []), ...(withDetails ? ['details'] : [])].sort());
        expect(wire.code).toBe(code);
        expect(wire.message).toBe(message);
        expect(JSON.stringify(wire)).not.toContain(SECRET);
        expect(plainSize(wire)).toBeGreaterThan(0);
      }),
    );
  });

  it('an error that is not a WalletError goes up as SIGNER_FRAME_FAILED with a fixed message', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constant(new Error(SECRET)), fc.constant(SECRET), fc.constant({ code: 'X', message: SECRET }), fc.anything()), (thrown) => {
        const wire = toWire(thrown);
        if (wire.code !== 'SIGNER_FRAME_FAILED') expect.fail(`unexpected ${wire.code}`);
        expect(JSON.stringify(wire)).not.toContain(SECRET);
      }),
    );
  });

  it('details that are not plain data stay behind', () => {
    const wire = toWire(new WalletError('OTP_CODE_INVALID', 'wrong', { details: { key: new Uint8Array([1, 2, 3]) } as Record<string, unknown> }));
    expect(wire).toEqual({ code: 'OTP_CODE_INVALID', message: 'wrong' });
  });
});
