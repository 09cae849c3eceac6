/**
 * Values a test makes in Node (fast-check's `anything`: BigInts, Dates, Maps, Sets, typed arrays,
 * null-prototype objects, undefined, NaN, -0) carried to a page as JSON, the one kind of argument
 * every driver passes (e2e/drivers/driver.ts). Every object becomes a tagged one (`$`), so nothing of
 * the value can be mistaken for a tag; e2e/frame/in-page.ts's `postThenCall` rebuilds the values.
 */
export type Tagged = null | boolean | number | string | Tagged[] | { $: string; v?: unknown; k?: string; p?: boolean };

export function tagged(value: unknown): Tagged {
  if (value === undefined) return { $: 'u' };
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? value : { $: 'n', v: Object.is(value, -0) ? '-0' : String(value) };
  if (typeof value === 'bigint') return { $: 'b', v: value.toString() };
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (Array.isArray(value)) return Array.from(value, tagged);
  if (value instanceof Date) return { $: 'd', v: tagged(value.getTime()) };
  if (value instanceof Map) return { $: 'm', v: [...value].map(([k, v]) => [tagged(k), tagged(v)]) };
  if (value instanceof Set) return { $: 's', v: [...value].map(tagged) };
  if (ArrayBuffer.isView(value)) return { $: 't', k: value.constructor.name, v: Array.from(value as unknown as ArrayLike<unknown>, tagged) };
  if (typeof value === 'object') return { $: 'o', p: Object.getPrototypeOf(value) === null, v: Object.entries(value).map(([k, v]) => [k, tagged(v)]) };
  throw new Error(`no JSON form for a ${typeof value}`);
}
