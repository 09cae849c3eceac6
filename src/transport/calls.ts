/**
 * What sends a call (loaded on first use by client.ts): a plain call's exchange and answer, and the
 * signed-retry engine (./signed.ts). Every request comes from a login, an action, a refresh, a
 * session listing or an end; restoring the sessions kept in this browser sends none, so none of this
 * is startup code.
 */
import { parseJsonBody } from './errors.js';
import { exchange, type ClientConfig, type PreparedCall } from './http.js';

export { runSigned } from './signed.js';

/** A plain (unsigned) call: one exchange; 204/205 resolve to undefined, anything else to its JSON. */
export async function runRequest(config: ClientConfig, call: PreparedCall): Promise<unknown> {
  const answer = await exchange(config, call, { leg: 1 });
  if (answer.status === 204 || answer.status === 205) return undefined;
  return parseJsonBody(answer.status, answer.text);
}
