// executeQuote against a sandbox that reads spec §5.3 alone (SANDBOX_QUOTE_EXECUTE=signed-retry,
// src/sandbox/quote-execute.ts): the lone stamp is refused (REQUEST_ID_MISSING), nothing is paid,
// and the library starts over once as a signed retry with the same Idempotency-Key.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Quote } from '../../src/types.js';
import { counted, failing, loggedInCustomer, shape, useTestSandbox, type TestCustomer, type TestWallet } from './helpers.js';

// Read by startSandbox when the file's sandbox starts (useTestSandbox's beforeAll).
process.env.SANDBOX_QUOTE_EXECUTE = 'signed-retry';
const env = useTestSandbox();
let payer: TestCustomer;
let payee: TestCustomer;
let t: TestWallet;

beforeAll(async () => {
  // The sandbox has started (read once at start): the next test file in this worker must not inherit the mode.
  delete process.env.SANDBOX_QUOTE_EXECUTE;
  expect(env.sandbox.quoteExecute).toBe('signed-retry');
  ({ customer: payer, t } = await loggedInCustomer(env, { fund: 1_000 }));
  payee = await env.admin.customer();
});

const quote = (amount: number): Promise<Quote> => t.wallet.createQuote({ sourceAccountId: payer.accountId, destinationAccountId: payee.accountId, amount });

describe('executeQuote on a signed-retry-only service (spec §5.3)', () => {
  it('the stamp is refused, then unsigned leg, 202, signed leg: paid once, one Idempotency-Key', async () => {
    const q = await quote(40);
    const before = await env.admin.balance(payer.accountId, payer.customerId);
    const { result, legs, wire } = await counted(t, () => t.wallet.executeQuote(q));
    expect(shape(legs)).toEqual([
      ['POST', 401, 1, true],
      ['POST', 202, 1, false],
      ['POST', 200, 2, true],
    ]);
    expect(new Set(wire.map((w) => w.headers.get('Idempotency-Key'))).size).toBe(1);
    expect(wire[2]!.headers.get('Request-Id')).not.toBeNull();
    expect(result).toMatchObject({ id: q.id, status: 'PROCESSING' });
    expect(await env.admin.balance(payer.accountId, payer.customerId)).toBe(before - 40);
  });

  it('a refusal of the signed retry keeps its meaning: INSUFFICIENT_FUNDS after the start-over', async () => {
    const q = await quote(1_000_000);
    const { error, legs } = await failing(t, () => t.wallet.executeQuote(q));
    expect(error).toMatchObject({ code: 'INSUFFICIENT_FUNDS', details: expect.objectContaining({ quoteId: q.id }) });
    expect(legs.map((l) => l.status)).toEqual([401, 202, 400]);
  });
});
