/**
 * Profiles of the sandbox: what its answers carry beyond the contract.
 *
 * - `sandbox` (the default): the service's contract plus explanations a developer wants while
 *   building — `details.cause`, `details.requestStatus`, `details.attemptsLeft` and other details on
 *   errors, `status` and `message` next to `reason` in error bodies, `authMethodId` on `AuthSession`,
 *   the extra record fields listed in contract.ts under `sandbox`.
 * - `service`: exactly what the spec defines plus what the wire reference adds where the spec is
 *   silent (each such field listed once, in contract.ts). Error bodies are `{code, reason, details?}`
 *   (spec §7) where `details` holds only the spec's `errors[]` (field validation); headers
 *   (`Retry-After`, `Allow`, `Date`) stay. A client that passes against this profile relies on
 *   nothing the spec and the wire reference do not promise.
 * - `spec-minimal`: the service profile with every field the contract leaves optional or open
 *   omitted (contract.ts `minimal`), and ids of another shape than `<Type>:<uuid>` for the
 *   embedded-wallet records (`AuthMethod`, `Session`, `Request`, `DelegatedKey`, `Card`: the library
 *   must treat ids as opaque). A library that passes here tolerates any spec-conformant answer.
 *   Every field it omits and every field it sends beyond the spec's tables, with the reason:
 *   SPEC-MINIMAL.md beside this file (issue 34: the account's `type` and the card's `cardholderId`
 *   are omitted; the session's `accountId` already was).
 *
 * Behaviour (what is accepted or refused, statuses and codes) is the same in all three.
 *
 * Chosen with `startSandbox({ profile })`, else the environment variable `SANDBOX_PROFILE`, else
 * `sandbox`. The sandbox-only routes (`/sandbox/*`: clock, funding, faults, the stand-in IdP) exist
 * in every profile: they are test tooling, not service answers.
 */
import { invalidArgument } from '../errors.js';
import type { SandboxError } from './errors.js';

/**
 * How the sandbox answers: `sandbox` adds explanations (`details.cause`, `authMethodId`, …);
 * `service` answers what the spec and the wire reference define; `spec-minimal` omits even what they
 * leave optional and shapes ids differently.
 */
export type SandboxProfile = 'sandbox' | 'service' | 'spec-minimal';
/** Every {@link SandboxProfile}. */
export const SANDBOX_PROFILES: readonly SandboxProfile[] = ['sandbox', 'service', 'spec-minimal'];
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

/** True when answers carry only the contract (`service`, `spec-minimal`). */
export function contractOnly(profile: SandboxProfile): boolean {
  return profile !== 'sandbox';
}

/** An error's body in `profile`: spec §7 `{code, reason, details?}`; the sandbox profile adds `status`, `message` and explanations. */
export function errorBody(profile: SandboxProfile, error: SandboxError): Record<string, unknown> {
  const body = error.toBody();
  if (profile === 'sandbox') return { ...body };
  const errors = body.details?.errors;
  return {
    code: body.code,
    reason: body.reason,
    ...(Array.isArray(errors) ? { details: { errors } } : {}),
  };
}
