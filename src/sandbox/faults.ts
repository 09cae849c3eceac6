/**
 * Faults on demand: the next N answers of a route made PROCESSING, a 5xx, a 429 with Retry-After,
 * slow, or a dropped connection — so a client's resend, backoff and timeout paths can be tested
 * (the service may answer all of these; the sandbox otherwise never does).
 *
 * A fault is armed with `startSandbox({ faults })`, `sandbox.faults.add()` or `POST /sandbox/faults`
 * and matches a request by method and path (relative to `{base_url}`, `:name` or `*` for one
 * segment, a final `**` for the rest) and, optionally, whether the request carries a wallet
 * signature (`signed: true` matches only signed retries). Each matching request with valid platform
 * credentials uses up one of its `times` (default 1) — a request the sandbox would refuse `401
 * UNAUTHORIZED` never takes a fault (server.ts: a stray unauthenticated call, a port scan or a
 * health probe cannot spend the fault a test armed for its own call); the first armed fault that matches wins. Decisions, written here:
 *
 * - `processing`: `200 {"status":"PROCESSING"}` and the request is NOT handled (nothing changes, a
 *   signed retry's `Request-Id` is not used up): the client must resend it identically (wire §4).
 * - `error`: `status` (default 500; 500–599) with the profile's error body, code `INTERNAL_ERROR`;
 *   not handled.
 * - `rate-limit`: `429 RATE_LIMITED` with `Retry-After: retryAfterSeconds` (default 1); not handled.
 * - `delay`: the request is handled normally, its answer written `ms` later (a client timeout
 *   shorter than `ms` sees no answer; the work is done all the same, as on a real slow service).
 * - `drop`: the connection is destroyed without an answer; not handled.
 * - `hold` (test-only, for races "while the answer is on its way"): the request is handled normally
 *   and its answer waits until the test releases the fault (`release(id)`, `POST
 *   /sandbox/faults/{id}/release`), or `ms` after it is ready (default and at most 120 000: a
 *   forgotten hold never keeps a connection for ever). The fault's `held` counts the answers
 *   ready and waiting, so a test waits for that state (the work done, the answer not sent) and
 *   releases on a state of its own, never after a fixed time. A held fault stays listed until its
 *   uses are spent and its answers released; `clear()` releases them too.
 *
 * The state lives here, one queue per sandbox (SandboxState.faults); Node runs one request's
 * matching at a time, so taking a fault is atomic. `/sandbox/*` routes never match (the tools
 * that arm faults must keep working).
 */
import { invalidArgument } from '../errors.js';

/** What a fault does to a matching request (see the module comment). */
export type FaultKind = 'processing' | 'error' | 'rate-limit' | 'delay' | 'drop' | 'hold';

/** What to do to the next `times` requests matching `method` and `path`. */
export interface FaultSpec {
  /** `processing` | `error` | `rate-limit` | `delay` | `drop` | `hold` (see the module comment). */
  kind: FaultKind;
  /** Path relative to `{base_url}`: `/auth/credentials/:id/verify`, `/quotes/*` / `execute`, `/auth/**`. */
  path: string;
  /** HTTP method; default: any. */
  method?: string;
  /** `true`: only requests carrying `Service-Wallet-Signature`; `false`: only those without; default: both. */
  signed?: boolean;
  /** How many matching requests it affects; default 1. */
  times?: number;
  /** `error`: the status, 500–599 (default 500). */
  status?: number;
  /** `rate-limit`: the `Retry-After` seconds (default 1). */
  retryAfterSeconds?: number;
  /** `delay`: milliseconds before the answer is written (required, ≤ 120 000); `hold`: the longest an answer waits for its release (default and at most 120 000). */
  ms?: number;
}

/** An armed fault: its spec with the uses left. */
export interface ArmedFault extends Readonly<Required<Pick<FaultSpec, 'kind' | 'path' | 'times'>>> {
  /** Its number in this sandbox (1, 2, …). */
  readonly id: number;
  /** The method it matches (upper case), or undefined for any. */
  readonly method: string | undefined;
  /** Whether it matches only signed (`true`) or unsigned (`false`) requests; undefined: both. */
  readonly signed: boolean | undefined;
  /** `error`: the status. */
  readonly status: number | undefined;
  /** `rate-limit`: the Retry-After seconds. */
  readonly retryAfterSeconds: number | undefined;
  /** `delay`: the milliseconds; `hold`: the longest wait for a release. */
  readonly ms: number | undefined;
  /** Uses left. */
  readonly left: number;
  /** `hold`: answers ready and waiting for the release (0 for the other kinds). */
  readonly held: number;
}

const KINDS: readonly FaultKind[] = ['processing', 'error', 'rate-limit', 'delay', 'drop', 'hold'];
const MAX_DELAY_MS = 120_000;

/** Checks a fault spec (from options, the API or the tools route); a bad one is `INVALID_ARGUMENT` naming the field. */
export function checkFault(value: unknown, name = 'fault'): FaultSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidArgument(name, 'an object { kind, path, … }');
  const f = value as Record<string, unknown>;
  const known = new Set(['kind', 'path', 'method', 'signed', 'times', 'status', 'retryAfterSeconds', 'ms']);
  const unknown = Object.keys(f).find((k) => !known.has(k));
  if (unknown !== undefined) throw invalidArgument(`${name}.${unknown}`, 'absent (unknown field)');
  if (!KINDS.includes(f.kind as FaultKind)) throw invalidArgument(`${name}.kind`, `one of ${KINDS.join(', ')}`);
  if (typeof f.path !== 'string' || !f.path.startsWith('/') || f.path.length > 512) throw invalidArgument(`${name}.path`, 'a path starting with / (relative to the base URL)');
  if (f.method !== undefined && (typeof f.method !== 'string' || !/^[A-Za-z]{1,16}$/.test(f.method))) throw invalidArgument(`${name}.method`, 'an HTTP method');
  if (f.signed !== undefined && typeof f.signed !== 'boolean') throw invalidArgument(`${name}.signed`, 'a boolean');
  const int = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
  if (f.times !== undefined && !int(f.times, 1, 1000)) throw invalidArgument(`${name}.times`, 'an integer from 1 to 1000');
  if (f.status !== undefined && (f.kind !== 'error' || !int(f.status, 500, 599))) throw invalidArgument(`${name}.status`, 'only for kind error: an integer from 500 to 599');
  if (f.retryAfterSeconds !== undefined && (f.kind !== 'rate-limit' || !int(f.retryAfterSeconds, 0, 3600))) {
    throw invalidArgument(`${name}.retryAfterSeconds`, 'only for kind rate-limit: an integer from 0 to 3600');
  }
  const msOk = f.kind === 'delay' ? int(f.ms, 0, MAX_DELAY_MS) : f.kind === 'hold' ? f.ms === undefined || int(f.ms, 0, MAX_DELAY_MS) : f.ms === undefined;
  if (!msOk) throw invalidArgument(`${name}.ms`, `for kind delay (required there) or hold: an integer from 0 to ${MAX_DELAY_MS}`);
  return f as unknown as FaultSpec;
}

function segmentsMatch(pattern: readonly string[], path: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i += 1) {
    const p = pattern[i] as string;
    if (p === '**' && i === pattern.length - 1) return path.length >= i;
    if (i >= path.length) return false;
    if (p !== '*' && !p.startsWith(':') && p !== path[i]) return false;
  }
  return pattern.length === path.length;
}

const split = (path: string): string[] => path.split('/').filter((s) => s !== '');

/** Arming faults on a running sandbox (`RunningSandbox.faults`). */
export interface SandboxFaultControl {
  /** Arms a fault (a bad spec is `INVALID_ARGUMENT`); returns it. */
  add(spec: FaultSpec): ArmedFault;
  /** The armed faults with uses left. */
  list(): ArmedFault[];
  /** Disarms every fault (held answers are sent). */
  clear(): void;
  /** Sends the answers a `hold` fault holds now; returns the fault, or undefined when there is no such fault. */
  release(id: number): ArmedFault | undefined;
}

/** A fault a request took: its number (for `hold`'s release) and spec. */
export interface TakenFault {
  readonly id: number;
  readonly spec: FaultSpec;
}

interface Entry {
  id: number;
  spec: FaultSpec;
  pattern: string[];
  left: number;
  /** `hold`: requests that took it whose answers are not ready yet. */
  coming: number;
  /** `hold`: the releases of the answers waiting. */
  waiting: Set<() => void>;
}

/** The armed faults of one sandbox. */
export class Faults implements SandboxFaultControl {
  private armed: Entry[] = [];
  private nextId = 1;

  /** Arms a fault (checked first); returns it. */
  add(spec: FaultSpec): ArmedFault {
    const checked = checkFault(spec);
    const entry: Entry = { id: this.nextId++, spec: { ...checked }, pattern: split(checked.path), left: checked.times ?? 1, coming: 0, waiting: new Set() };
    this.armed.push(entry);
    return this.view(entry);
  }

  /** The armed faults with uses left or answers held. */
  list(): ArmedFault[] {
    return this.armed.map((e) => this.view(e));
  }

  /** Disarms every fault; held answers are sent. */
  clear(): void {
    const entries = this.armed;
    this.armed = [];
    for (const e of entries) for (const send of [...e.waiting]) send();
  }

  /** Sends the answers fault `id` holds now (none: nothing to do); undefined when no such fault is listed. */
  release(id: number): ArmedFault | undefined {
    const entry = this.armed.find((e) => e.id === id);
    if (entry === undefined) return undefined;
    for (const send of [...entry.waiting]) send();
    return this.view(entry);
  }

  /** Takes one use of the first fault with uses left matching this request, or undefined. */
  take(method: string, relativeSegments: readonly string[], signed: boolean): TakenFault | undefined {
    if (relativeSegments[0] === 'sandbox') return undefined;
    const entry = this.armed.find(
      (e) =>
        e.left > 0 &&
        (e.spec.method === undefined || e.spec.method.toUpperCase() === method) &&
        (e.spec.signed === undefined || e.spec.signed === signed) &&
        segmentsMatch(e.pattern, relativeSegments),
    );
    if (entry === undefined) return undefined;
    entry.left -= 1;
    if (entry.spec.kind === 'hold') entry.coming += 1; // listed until its answer is ready and released
    this.prune(entry);
    return { id: entry.id, spec: entry.spec };
  }

  /**
   * `hold`: the answer of a request that took fault `id` is ready; resolves once it is released
   * (or `ms` later, default and at most 120 000). Counted in the fault's `held` meanwhile.
   */
  hold(id: number): Promise<void> {
    const entry = this.armed.find((e) => e.id === id);
    if (entry === undefined) return Promise.resolve(); // cleared before the answer was ready
    entry.coming = Math.max(0, entry.coming - 1);
    return new Promise<void>((resolve) => {
      const send = (): void => {
        clearTimeout(timer);
        entry.waiting.delete(send);
        this.prune(entry);
        resolve();
      };
      const timer = setTimeout(send, entry.spec.ms ?? MAX_DELAY_MS);
      timer.unref();
      entry.waiting.add(send);
    });
  }

  /** Drops an entry with no use left and no answer coming or held. */
  private prune(entry: Entry): void {
    if (entry.left === 0 && entry.coming === 0 && entry.waiting.size === 0) this.armed = this.armed.filter((e) => e !== entry);
  }

  private view(e: Entry): ArmedFault {
    return {
      id: e.id,
      kind: e.spec.kind,
      path: e.spec.path,
      times: e.spec.times ?? 1,
      method: e.spec.method?.toUpperCase(),
      signed: e.spec.signed,
      status: e.spec.status,
      retryAfterSeconds: e.spec.retryAfterSeconds,
      ms: e.spec.ms,
      left: e.left,
      held: e.waiting.size,
    };
  }
}
