/**
 * The frame's descriptions of its user actions (src/signer/frame/describe.ts: the words, or the plain
 * fallback where the words module cannot describe the call) in a host's table that marks every
 * text (marked-strings.ts): every title and label is one of the host's texts — or, in a fallback,
 * a field name of the call's own argument (the data) — and no default English text shows. The
 * screens themselves are checked in a browser (e2e/frame/portable/12-all-strings.spec.ts, in three engines).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DESCRIBE } from '../../src/signer/frame/describe.js';
import { inWordsWith } from '../../src/signer/frame/words-hookup.js';
import { checkStringOverrides, DEFAULT_STRINGS } from '../../src/signer/words/strings.js';
import { fromTable, markedTable, tagArb } from './marked-strings.js';

/** The default texts' literal runs of two words or more: none may show in a marked table (one word may be data: `Customer:…`). */
const DEFAULT_RUNS = Object.values(DEFAULT_STRINGS).flatMap((text) => text.split(/\{\w+\}/).map((run) => run.trim()).filter((run) => run.includes(' ') && run.length >= 8));

const id = (prefix: string) => fc.uuid().map((u) => `${prefix}:${u}`);
/** Arguments as the parent may send them: well-formed for each action, or anything at all. */
const argsFor: Record<string, fc.Arbitrary<unknown[]>> = {
  updateAccount: fc.tuple(id('InternalAccount'), fc.oneof(fc.record({ privateEnabled: fc.boolean() }), fc.dictionary(fc.string(), fc.jsonValue()))),
  deleteCredential: fc.tuple(id('AuthMethod'), fc.option(id('InternalAccount'), { nil: undefined })),
  addSmsOtp: fc.tuple(fc.oneof(fc.record({ accountId: id('InternalAccount') }), fc.jsonValue())),
  addEmailOtp: fc.tuple(fc.oneof(fc.record({ accountId: id('InternalAccount') }), fc.jsonValue())),
  signOutOtherDevices: fc.tuple(fc.option(id('InternalAccount'), { nil: undefined })),
  createDelegatedKey: fc.tuple(fc.oneof(fc.record({ cardId: id('Card'), internalAccountId: id('InternalAccount'), nickname: fc.string({ minLength: 1 }) }), fc.jsonValue())),
  revokeDelegatedKey: fc.tuple(id('DelegatedKey'), fc.option(id('InternalAccount'), { nil: undefined })),
  executeQuote: fc.tuple(id('Quote'), fc.option(fc.record({ idempotencyKey: fc.uuid() }), { nil: undefined })),
  changeContact: fc.tuple(id('Customer'), fc.oneof(fc.record({ email: fc.emailAddress() }), fc.record({ phoneNumber: fc.stringMatching(/^\+[1-9][0-9]{7,14}$/) }), fc.dictionary(fc.string(), fc.jsonValue()))),
};

/** The own keys of the objects among `args` (a fallback shows a field's name as the call has it). */
const fieldNames = (args: readonly unknown[]) => new Set(args.flatMap((a) => (typeof a === 'object' && a !== null ? Object.keys(a) : [])));

describe("the frame's descriptions in the host's table", () => {
  it('a table that overrides every key with a marked text is a valid host configuration', () => {
    fc.assert(
      fc.property(tagArb, (tag) => {
        expect(Object.keys(checkStringOverrides(markedTable(tag)))).toEqual(Object.keys(DEFAULT_STRINGS));
      }),
    );
  });

  it('every title and label of every action, described or plain, is a text of the host', () => {
    expect(Object.keys(argsFor).sort()).toEqual(Object.keys(DESCRIBE).sort());
    const action = fc.constantFrom(...Object.keys(argsFor)).chain((method) => fc.tuple(fc.constant(method), argsFor[method] as fc.Arbitrary<unknown[]>));
    fc.assert(
      fc.property(tagArb, action, (tag, [method, args]) => {
        const words = inWordsWith({ strings: markedTable(tag), locale: 'en-US', timeZone: 'UTC' });
        const described = (DESCRIBE[method] as NonNullable<(typeof DESCRIBE)[string]>)(args, words);
        expect(fromTable(described.title, tag), `${method} title ${described.title}`).toBe(true);
        const names = fieldNames(args);
        for (const [label, value] of described.lines) {
          expect(fromTable(label, tag) || names.has(label), `${method} label ${label}`).toBe(true);
          for (const run of DEFAULT_RUNS) expect(value, `${method}: a default text in a value`).not.toContain(run);
        }
      }),
      { numRuns: 300 },
    );
  });
});
