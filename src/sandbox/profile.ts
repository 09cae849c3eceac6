/**
 * Profiles of the sandbox: what its answers carry beyond the contract.
 *
 * - `sandbox` (the default): the service's contract plus explanations a developer wants while
 *   building — `details.cause`, `details.requestStatus`, `details.attemptsLeft` and other details on
 *   errors, `reason` next to `message` in error bodies, `authMethodId` on `AuthSession`.
 * - `service`: only what the spec and the wire reference define, shaped as the real service sends
 *   it. Error bodies are `{status, code, message, details?}` where `details` holds only the spec's
 *   `errors[]` (field validation, spec §7); headers (`Retry-After`, `Allow`, `Date`) stay; success
 *   bodies drop the sandbox's additions. A client that passes against this profile relies on
 *   nothing the service does not send. Behaviour (what is accepted or refused) is the same in both.
 *
 * Chosen with `startSandbox({ profile })`, else the environment variable `SANDBOX_PROFILE`
 * (`sandbox` | `service`), else `sandbox`. The sandbox-only routes (`/sandbox/*`: clock, funding,
 * the stand-in IdP) exist in both: they are test tooling, not service answers.
 */
import { invalidArgument } from '../errors.js';
import type { SandboxError } from './errors.js';

/**
 * How the sandbox answers: `sandbox` adds explanations (`details.cause`, `reason`, …); `service`
 * answers only what the real service sends.
 */
export type SandboxProfile = 'sandbox' | 'service';
/** Every {@link SandboxProfile}. */
export const SANDBOX_PROFILES: readonly SandboxProfile[] = ['sandbox', 'service'];
/** The environment variable read when `startSandbox` gets no `profile`. */
export const PROFILE_ENV = 'SANDBOX_PROFILE';

function isProfile(value: unknown): value is SandboxProfile {
  return (SANDBOX_PROFILES as readonly unknown[]).includes(value);
}

/** The profile to use: the option, else `SANDBOX_PROFILE`, else `sandbox`; a bad value is `INVALID_ARGUMENT`. */
export function resolveProfile(option: unknown, env: Record<string, string | undefined> = process.env): SandboxProfile {
  if (option !== undefined) {
    if (!isProfile(option)) throw invalidArgument('options.profile', `one of ${SANDBOX_PROFILES.join(', ')}`);
    return option;
  }
  const fromEnv = env[PROFILE_ENV];
  if (fromEnv === undefined || fromEnv === '') return 'sandbox';
  if (!isProfile(fromEnv)) throw invalidArgument(PROFILE_ENV, `one of ${SANDBOX_PROFILES.join(', ')}`);
  return fromEnv;
}

/** An error's body in `profile`. */
export function errorBody(profile: SandboxProfile, error: SandboxError): Record<string, unknown> {
  const body = error.toBody();
  if (profile === 'sandbox') return { ...body };
  const errors = body.details?.errors;
  return {
    status: body.status,
    code: body.code,
    message: body.message,
    ...(Array.isArray(errors) ? { details: { errors } } : {}),
  };
}
