// The signer protocol's checks (src/signer/protocol.ts, THREAT-MODEL.md P4): what the frame accepts
// from a parent and the parent from the frame. fast-check draws any value (and near-valid ones);
// the oracle is written out: a message is accepted exactly when it is plain JSON data within the
// size and depth limits and has exactly the keys and types of its kind.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAME_HEIGHT, FRAME_METHODS, MAX_MESSAGE_BYTES, isHello, parseFrameMessage, parseParentMessage, plainSize, SIGNER_PROTOCOL } from '../../src/signer/protocol.js';

const METHODS = Object.keys(FRAME_METHODS);

/** The oracle for a parent's message (computed independently of the parser's structure). */
function expectedParent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    return undefined;
  }
  const v = value as Record<string, unknown>;
  if (JSON.stringify(JSON.parse(json)) !== json || plainSize(value) === -1) return undefined;
  const keys = Object.keys(v).sort().join(',');
  const id = v.id;
  const idOk = typeof id === 'number' && Number.isSafeInteger(id) && id > 0;
  if (v.type === 'cancel' && keys === 'id,type' && idOk) return { type: 'cancel', id };
  if (v.type === 'call' && keys === 'args,id,method,type' && idOk && typeof v.method === 'string' && METHODS.includes(v.method) && Array.isArray(v.args) && v.args.length <= 4) {
    return { type: 'call', id, method: v.method, args: v.args };
  }
  return undefined;
}

const nearlyValid = fc.oneof(
  fc.record({ type: fc.constantFrom('call', 'cancel', 'result'), id: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.constant(2 ** 60)), method: fc.constantFrom(...METHODS, 'exportWallet', '__proto__', 'toString'), args: fc.array(fc.jsonValue(), { maxLength: 6 }) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('call'), id: fc.integer({ min: 1 }), method: fc.constantFrom(...METHODS), args: fc.array(fc.jsonValue(), { maxLength: 4 }), extra: fc.jsonValue() }, { requiredKeys: ['type', 'id', 'method', 'args'] }),
);

describe('parseParentMessage', () => {
  it('accepts exactly the well-formed calls and cancels (any value, near-valid values)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true }), nearlyValid), (value) => {
        expect(parseParentMessage(value)).toEqual(expectedParent(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses a message larger than MAX_MESSAGE_BYTES, and one nested deeper than the limit', () => {
    const big = { type: 'call', id: 1, method: 'updateAccount', args: ['x'.repeat(MAX_MESSAGE_BYTES)] };
    expect(parseParentMessage(big)).toBeUndefined();
    expect(parseParentMessage({ ...big, args: ['x'.repeat(MAX_MESSAGE_BYTES - 200)] })).toBeDefined();
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = [deep];
    expect(parseParentMessage({ type: 'call', id: 1, method: 'restore', args: [deep] })).toBeUndefined();
  });

  it('refuses non-plain objects: class instances, getters are read as data only when own and enumerable', () => {
    class Call {
      type = 'call';
      id = 1;
      method = 'restore';
      args = [];
    }
    expect(parseParentMessage(new Call())).toBeUndefined();
    expect(parseParentMessage({ type: 'call', id: 1, method: 'restore', args: [new Date()] })).toBeUndefined();
    expect(parseParentMessage({ type: 'call', id: 1, method: 'restore', args: [] })).toEqual({ type: 'call', id: 1, method: 'restore', args: [] });
  });
});

describe('isHello', () => {
  it('is exactly {protocol, type: hello} of this version', () => {
    expect(isHello({ protocol: SIGNER_PROTOCOL, type: 'hello' })).toBe(true);
    expect(isHello({ protocol: SIGNER_PROTOCOL, type: 'hello', origin: 'https://app.example' })).toBe(false);
    expect(isHello({ protocol: 'embedded-wallet-signer.frame/0', type: 'hello' })).toBe(false);
    fc.assert(
      fc.property(fc.anything(), (v) => {
        expect(isHello(v)).toBe(false);
      }),
    );
  });
});

describe('parseFrameMessage', () => {
  it('never throws, and accepts only the frame kinds', () => {
    fc.assert(
      fc.property(fc.anything({ withMap: true, withBigInt: true }), (v) => {
        const parsed = parseFrameMessage(v);
        if (parsed !== undefined) expect(['ready', 'refused', 'result', 'error', 'state', 'event', 'ui']).toContain(parsed.type);
      }),
      { numRuns: 2000 },
    );
    expect(parseFrameMessage({ type: 'refused', code: 'ANYTHING' })).toBeUndefined();
    expect(parseFrameMessage({ type: 'error', id: 3, error: { code: 'X', message: 'm', details: [] } })).toBeUndefined();
    expect(parseFrameMessage({ type: 'ui', visible: true })).toEqual({ type: 'ui', visible: true });
  });

  it("a ui message's height is bounded: a finite number clamped to FRAME_HEIGHT, anything else drops the message", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.oneof(fc.double(), fc.integer({ min: -5_000, max: 5_000 }), fc.anything()), (visible, height) => {
        const parsed = parseFrameMessage({ type: 'ui', visible, height });
        // Not a finite number (undefined too: a key holding it is not plain JSON data): dropped.
        if (typeof height !== 'number' || !Number.isFinite(height)) {
          expect(parsed).toBeUndefined();
          return;
        }
        const expected = Math.round(Math.min(FRAME_HEIGHT.max, Math.max(FRAME_HEIGHT.min, height)));
        expect(parsed).toEqual({ type: 'ui', visible, height: expected });
        expect(expected).toBeGreaterThanOrEqual(FRAME_HEIGHT.min);
        expect(expected).toBeLessThanOrEqual(FRAME_HEIGHT.max);
      }),
      { numRuns: 2000 },
    );
    // No height: the frame's size stays as it was.
    expect(parseFrameMessage({ type: 'ui', visible: true })).toEqual({ type: 'ui', visible: true });
  });
});
