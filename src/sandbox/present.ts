/**
 * How an answer's body is shaped for the profile of the sandbox answering it (profile.ts): every
 * view ends in {@link present} with the shape it answers (contract.ts).
 *
 * - `sandbox`: the body as the view built it (the contract plus `SANDBOX_ADDITIONS`);
 * - `service`: the `SANDBOX_ADDITIONS` of the shape removed (nested shapes too);
 * - `spec-minimal`: only the fields the contract requires (or keeps where they apply).
 *
 * The profile is the answering sandbox's: server.ts runs each request inside {@link withProfile}
 * (several sandboxes may share one process). Views stay free of profile parameters. Outside a
 * request (a unit test calling a view) the profile is `sandbox`. The ids of embedded-wallet records
 * follow the profile too ({@link idFor}).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { CONTRACT, SANDBOX_ADDITIONS, minimalOf, type ShapeName } from './contract.js';
import type { SandboxProfile } from './profile.js';

const current = new AsyncLocalStorage<SandboxProfile>();

/** Runs `fn` as the answer of a sandbox in `profile`. */
export function withProfile<T>(profile: SandboxProfile, fn: () => T): T {
  return current.run(profile, fn);
}

/** The profile of the sandbox answering the current request (`sandbox` outside one). */
export function answeringProfile(): SandboxProfile {
  return current.getStore() ?? 'sandbox';
}

function withoutAdditions(shape: ShapeName, body: Record<string, unknown>): Record<string, unknown> {
  const extra = new Set(SANDBOX_ADDITIONS[shape] ?? []);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (extra.has(name)) continue;
    const nested = CONTRACT[shape][name]?.shape;
    if (nested !== undefined && value !== null && typeof value === 'object') {
      out[name] = Array.isArray(value)
        ? value.map((v) => (typeof v === 'object' && v !== null ? withoutAdditions(nested, v as Record<string, unknown>) : v))
        : withoutAdditions(nested, value as Record<string, unknown>);
    } else out[name] = value;
  }
  return out;
}

/** `body` (a view's full answer, shape `shape`) as the answering profile sends it. */
export function present(shape: ShapeName, body: Record<string, unknown>): Record<string, unknown> {
  const profile = answeringProfile();
  if (profile === 'sandbox') return body;
  const service = withoutAdditions(shape, body);
  return profile === 'spec-minimal' ? minimalOf(shape, service) : service;
}

/**
 * Types whose ids the `spec-minimal` profile shapes differently: the spec's §2.1 `<Type>:<uuid>`
 * covers the records it lists (Customer, InternalAccount, Transaction, Quote…); the embedded-wallet
 * records' ids are only examples in the wire reference (§1), so a client must treat them as opaque.
 */
const OPAQUE_TYPES: ReadonlySet<string> = new Set(['AuthMethod', 'Session', 'Request', 'DelegatedKey', 'Card']);

/** A new id of `type`: `<Type>:<uuid>`, or in `spec-minimal` for the opaque types `<type>_<32 hex>`. */
export function idFor(type: string): string {
  if (answeringProfile() === 'spec-minimal' && OPAQUE_TYPES.has(type)) return `${type.toLowerCase()}_${randomUUID().replaceAll('-', '')}`;
  return `${type}:${randomUUID()}`;
}
