/** The checks of `startSandbox`'s options (server.ts): a bad one is `WalletError('INVALID_ARGUMENT')`. */
import { checkEnclaveKeyOption } from './enclave-key.js';
import { checkFault } from './faults.js';
import { resolveProfile } from './profile.js';
import { resolveQuoteExecute } from './quote-execute.js';
import { invalidArgument } from '../errors.js';

function nonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

/** Checks `startSandbox` options; a bad one is `WalletError('INVALID_ARGUMENT')`. */
export function checkOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null) throw invalidArgument('options', 'an object');
  const o = options as Record<string, unknown>;
  if (o.port !== undefined && (typeof o.port !== 'number' || !Number.isInteger(o.port) || o.port < 0 || o.port > 65535)) {
    throw invalidArgument('options.port', 'an integer from 0 to 65535');
  }
  for (const name of ['host', 'clientId', 'clientSecret', 'rpId'] as const) {
    if (o[name] !== undefined && !nonEmptyString(o[name])) throw invalidArgument(`options.${name}`, 'a non-empty string');
  }
  if (o.clientId !== undefined && (o.clientId as string).includes(':')) throw invalidArgument('options.clientId', 'a string without ":" (HTTP Basic)');
  const origins = o.origin === undefined ? [] : Array.isArray(o.origin) ? o.origin : [o.origin];
  if (o.origin !== undefined && (origins.length === 0 || !origins.every(nonEmptyString))) {
    throw invalidArgument('options.origin', 'an origin string or a non-empty array of them');
  }
  const topOrigins = o.topOrigin === undefined ? [] : Array.isArray(o.topOrigin) ? o.topOrigin : [o.topOrigin];
  if (!topOrigins.every(nonEmptyString)) throw invalidArgument('options.topOrigin', 'an origin string or an array of them');
  if (o.faults !== undefined) {
    if (!Array.isArray(o.faults)) throw invalidArgument('options.faults', 'an array of { kind, path, … }');
    o.faults.forEach((f, i) => checkFault(f, `options.faults[${i}]`));
  }
  if (o.contactVerificationRegions !== undefined && (!Array.isArray(o.contactVerificationRegions) || !o.contactVerificationRegions.every(nonEmptyString))) {
    throw invalidArgument('options.contactVerificationRegions', 'an array of region codes');
  }
  if (o.oauthClientIds !== undefined && (!Array.isArray(o.oauthClientIds) || !o.oauthClientIds.every(nonEmptyString))) {
    throw invalidArgument('options.oauthClientIds', 'an array of non-empty strings');
  }
  if (o.now !== undefined && typeof o.now !== 'function') throw invalidArgument('options.now', 'a function returning epoch milliseconds');
  if (o.log !== undefined && o.log !== false && typeof o.log !== 'function') throw invalidArgument('options.log', 'a function or false');
  checkEnclaveKeyOption(o.enclaveKey);
  resolveProfile(o.profile);
  resolveQuoteExecute(o.quoteExecute);
}
