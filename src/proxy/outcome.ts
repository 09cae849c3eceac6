/** What the proxy did with one request: the response, the path it logs, and a refusal's code. */
import { errorResponse, type ProxyRefusal } from './responses.js';

export interface Outcome {
  readonly response: Response;
  readonly path: string;
  readonly code?: string;
  readonly detail?: string;
}

/** The log code of an error answer passed on with ids removed (S9). */
export const DETAILS_WITHHELD = 'DETAILS_WITHHELD';

/** The proxy's own JSON error answer for a refusal, with its code for the log. */
export function refuse(refusal: ProxyRefusal, path: string): Outcome {
  return { response: errorResponse(refusal.code, refusal.reason), path, code: refusal.code, ...(refusal.detail === undefined ? {} : { detail: refusal.detail }) };
}
