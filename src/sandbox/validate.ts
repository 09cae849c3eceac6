/**
 * Request-body validation that collects every bad field before answering.
 *
 * Usage in a handler:
 * ```ts
 * const f = Fields.of(ctx.body);                 // 400 INVALID_INPUT unless a JSON object
 * const type = f.enum('type', ['EMAIL_OTP', 'SMS_OTP'], { required: true });
 * const accountId = f.string('accountId', { required: true, max: 200 });
 * f.onlyKnown(['type', 'accountId']);            // optional: unknown fields are errors
 * f.done();                                      // throws 400 with details.errors[] if any
 * ```
 * Getters return `undefined` for an absent or bad field, so after `done()` the required ones are set
 * (use `f.req(value)` to narrow). Nested objects share the error list (`f.object('attestation')`).
 */
import { parsePublicKey, type ParsedPublicKey } from './crypto/p256.js';
import { invalidInput, type FieldConstraint, type FieldError } from './errors.js';

export interface StringRule {
  required?: boolean;
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** Message used when `pattern` does not match. */
  format?: string;
}

export interface IntegerRule {
  required?: boolean;
  min?: number;
  max?: number;
}

const DEFAULT_MAX_STRING = 10_000;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Fields {
  private readonly errors: FieldError[];
  private readonly data: Record<string, unknown>;
  private readonly prefix: string;

  private constructor(data: Record<string, unknown>, prefix: string, errors: FieldError[]) {
    this.data = data;
    this.prefix = prefix;
    this.errors = errors;
  }

  /** Starts validating a request body; anything but a JSON object is `400 INVALID_INPUT`. */
  static of(body: unknown, what = 'request body'): Fields {
    if (body === undefined) throw invalidInput(`${what} is required (a JSON object)`);
    if (!isPlainObject(body)) throw invalidInput(`${what} must be a JSON object`);
    return new Fields(body, '', []);
  }

  /** Like {@link of} but an absent body counts as `{}`. */
  static ofOptional(body: unknown, what = 'request body'): Fields {
    return Fields.of(body === undefined ? {} : body, what);
  }

  path(name: string): string {
    return this.prefix === '' ? name : `${this.prefix}.${name}`;
  }

  add(name: string, constraint: FieldConstraint, message: string): void {
    this.errors.push({ field: this.path(name), constraint, message });
  }

  has(name: string): boolean {
    return Object.hasOwn(this.data, name) && this.data[name] !== undefined;
  }

  raw(name: string): unknown {
    return Object.hasOwn(this.data, name) ? this.data[name] : undefined;
  }

  private present(name: string, required: boolean | undefined): boolean {
    if (this.has(name) && this.data[name] !== null) return true;
    if (this.has(name) && this.data[name] === null && !required) {
      this.add(name, 'TYPE', 'must not be null');
      return false;
    }
    if (required) this.add(name, 'REQUIRED', 'is required');
    return false;
  }

  string(name: string, rule: StringRule = {}): string | undefined {
    if (!this.present(name, rule.required)) return undefined;
    const value = this.data[name];
    if (typeof value !== 'string') {
      this.add(name, 'TYPE', 'must be a string');
      return undefined;
    }
    const min = rule.min ?? (rule.required ? 1 : 0);
    const max = rule.max ?? DEFAULT_MAX_STRING;
    if (value.length < min || value.length > max) {
      this.add(name, 'LENGTH', `must be ${min}–${max} characters long`);
      return undefined;
    }
    if (rule.pattern !== undefined && !rule.pattern.test(value)) {
      this.add(name, 'FORMAT', rule.format ?? `must match ${String(rule.pattern)}`);
      return undefined;
    }
    return value;
  }

  /**
   * A hex SEC1 P-256 public key on the curve (`clientPublicKey`), optionally of one form; a bad one is
   * listed with the other bad fields as FORMAT. `hex` is the value exactly as sent (the OAuth nonce
   * and the passkey challenge bind those bytes).
   */
  publicKey(name: string, rule: { required?: boolean; form?: ParsedPublicKey['form'] } = {}): (ParsedPublicKey & { readonly hex: string }) | undefined {
    const raw = this.string(name, { ...(rule.required !== undefined ? { required: rule.required } : {}), max: 130 });
    if (raw === undefined) return undefined;
    // Hex in any case (issue 34): spec §4.5 says "66 hex characters" / "130 hex characters", no case.
    const key = parsePublicKey(raw.toLowerCase());
    if (key === undefined || (rule.form !== undefined && key.form !== rule.form)) {
      this.add(name, 'FORMAT', rule.form === 'uncompressed'
        ? 'must be a fresh uncompressed P-256 public key (130 hex characters, 04 prefix)'
        : 'must be a P-256 public key in hex (compressed or uncompressed)');
      return undefined;
    }
    return { ...key, hex: raw };
  }

  enum<T extends string>(name: string, values: readonly T[], rule: { required?: boolean } = {}): T | undefined {
    if (!this.present(name, rule.required)) return undefined;
    const value = this.data[name];
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
      this.add(name, 'ENUM', `must be one of ${values.join(', ')}`);
      return undefined;
    }
    return value as T;
  }

  integer(name: string, rule: IntegerRule = {}): number | undefined {
    if (!this.present(name, rule.required)) return undefined;
    const value = this.data[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.add(name, 'TYPE', 'must be an integer');
      return undefined;
    }
    const min = rule.min ?? Number.MIN_SAFE_INTEGER;
    const max = rule.max ?? Number.MAX_SAFE_INTEGER;
    if (value < min || value > max) {
      this.add(name, 'RANGE', `must be between ${min} and ${max}`);
      return undefined;
    }
    return value;
  }

  number(name: string, rule: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    if (!this.present(name, rule.required)) return undefined;
    const value = this.data[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.add(name, 'TYPE', 'must be a finite number');
      return undefined;
    }
    if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) {
      this.add(name, 'RANGE', `must be between ${rule.min ?? '-∞'} and ${rule.max ?? '∞'}`);
      return undefined;
    }
    return value;
  }

  boolean(name: string, rule: { required?: boolean } = {}): boolean | undefined {
    if (!this.present(name, rule.required)) return undefined;
    const value = this.data[name];
    if (typeof value !== 'boolean') {
      this.add(name, 'TYPE', 'must be a boolean');
      return undefined;
    }
    return value;
  }

  /** An array of strings, each checked with `item`. */
  stringArray(name: string, rule: { required?: boolean; maxItems?: number; item?: StringRule } = {}): string[] | undefined {
    if (!this.present(name, rule.required)) return undefined;
    const value = this.data[name];
    const maxItems = rule.maxItems ?? 100;
    if (!Array.isArray(value)) {
      this.add(name, 'TYPE', 'must be an array of strings');
      return undefined;
    }
    if (value.length > maxItems) {
      this.add(name, 'LENGTH', `must have at most ${maxItems} items`);
      return undefined;
    }
    const item = rule.item ?? {};
    const out: string[] = [];
    let ok = true;
    value.forEach((entry, index) => {
      const where = `${name}[${index}]`;
      if (typeof entry !== 'string') {
        this.add(where, 'TYPE', 'must be a string');
        ok = false;
        return;
      }
      if (entry.length < (item.min ?? 1) || entry.length > (item.max ?? DEFAULT_MAX_STRING)) {
        this.add(where, 'LENGTH', `must be ${item.min ?? 1}–${item.max ?? DEFAULT_MAX_STRING} characters long`);
        ok = false;
        return;
      }
      if (item.pattern !== undefined && !item.pattern.test(entry)) {
        this.add(where, 'FORMAT', item.format ?? `must match ${String(item.pattern)}`);
        ok = false;
        return;
      }
      out.push(entry);
    });
    return ok ? out : undefined;
  }

  /** A nested object validated with the same error list; undefined when absent or not an object. */
  object(name: string, rule: { required?: boolean } = {}): Fields | undefined {
    if (!this.present(name, rule.required)) return undefined;
    const value = this.data[name];
    if (!isPlainObject(value)) {
      this.add(name, 'TYPE', 'must be a JSON object');
      return undefined;
    }
    return new Fields(value, this.path(name), this.errors);
  }

  /** Flags every field not in `allowed` as `UNKNOWN_FIELD`. */
  onlyKnown(allowed: readonly string[]): void {
    for (const key of Object.keys(this.data)) {
      if (!allowed.includes(key)) this.add(key, 'UNKNOWN_FIELD', 'is not a known field');
    }
  }

  get ok(): boolean {
    return this.errors.length === 0;
  }

  /** Throws `400 INVALID_INPUT` listing every bad field, if there is one. */
  done(reason = 'The request has invalid fields'): void {
    if (this.errors.length > 0) throw invalidInput(reason, this.errors);
  }

  /** Narrows a value that `done()` guarantees (a required field). */
  req<T>(value: T | undefined): T {
    if (value === undefined) {
      // Only reachable if a caller forgot to mark the field required: report it as input error.
      throw invalidInput('The request has invalid fields', this.errors.length > 0 ? this.errors : [{ field: '?', constraint: 'REQUIRED', message: 'is required' }]);
    }
    return value;
  }
}

/** Checks one query parameter (string, optional). */
export function queryParam(query: URLSearchParams, name: string, rule: StringRule = {}): string | undefined {
  const value = query.get(name);
  const f = Fields.of(value === null ? {} : { [name]: value }, 'query');
  const out = f.string(name, rule);
  f.done('The query has invalid parameters');
  return out;
}

export const EMAIL_PATTERN = /^[^\s@"<>]+@[^\s@"<>]+\.[^\s@"<>]+$/;
export const E164_PATTERN = /^\+[1-9][0-9]{6,14}$/;
export const DATE_PATTERN = /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;
export const BASE64URL_PATTERN = /^[A-Za-z0-9_-]*$/;
