/**
 * What the journeys of issue 31 do to a page in every engine, as functions that run in it (the
 * driver's `evaluate` or `addInitScript`): self-contained, one JSON argument. What must outlive a load is read from localStorage (the device's, shared by its tabs).
 */

/**
 * Init script: the page's wall clock (Date) runs `localStorage['e2e.clockOffsetMs']` ahead of the
 * real one, read at every use; its monotonic clock (performance.now) does not move: the user
 * changing the computer's clock (e2e/fixtures.ts `shiftableLocalClock`, for any engine).
 */
export function shiftableClock(): void {
  const Real = Date;
  const offset = (): number => Number(localStorage.getItem('e2e.clockOffsetMs') ?? '0');
  class Shifted extends Real {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(Real.now() + offset());
      else super(...(args as [string]));
    }
    static override now(): number {
      return Real.now() + offset();
    }
  }
  (globalThis as { Date: DateConstructor }).Date = Shifted as DateConstructor;
}

/**
 * Init script: while `localStorage['e2e.unreachable']` is '1', the page's requests to URLs that
 * contain `part` fail as they do without a network (fetch rejects with a TypeError); the methods
 * of those tried are listed in `globalThis.e2eTried`.
 */
export function unreachableWhileFlagged(part: string): void {
  const real = globalThis.fetch.bind(globalThis);
  const tried: string[] = [];
  (globalThis as { e2eTried?: string[] }).e2eTried = tried;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (localStorage.getItem('e2e.unreachable') === '1' && url.includes(part)) {
      tried.push((init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase());
      return Promise.reject(new TypeError('Failed to fetch'));
    }
    return real(input, init);
  };
}

/** Init script: this document cannot open IndexedDB (a blocked or corrupt database). */
export function indexedDbUnavailable(): void {
  IDBFactory.prototype.open = function () {
    throw new DOMException('The database cannot be opened.', 'UnknownError');
  };
}

/** In the page: IndexedDB refuses every write from now on (put and add throw QuotaExceededError, as on a full disk); reads and deletes work. */
export function storageFull(): void {
  for (const name of ['put', 'add'] as const) {
    IDBObjectStore.prototype[name] = function () {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  }
}

/**
 * In the page: its next `times` requests of `method` to URLs containing `part` that carry the
 * Service-Wallet-Signature stamp (a call's signed leg) wait before they are sent, one at a time,
 * until `releaseHeldLeg` lets the current one go (a slow network). `heldLegs` counts those held so far.
 */
export function holdSignedLegs(arg: { method: string; part: string; times: number }): void {
  const real = globalThis.fetch.bind(globalThis);
  const w = globalThis as { e2eHeld?: number; e2eRelease?: () => void };
  w.e2eHeld = 0;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const signed = new Headers(init?.headers).has('service-wallet-signature');
    if (signed && (init?.method ?? 'GET').toUpperCase() === arg.method && url.includes(arg.part) && w.e2eHeld! < arg.times) {
      await new Promise<void>((release) => {
        w.e2eRelease = release;
        w.e2eHeld!++;
      });
    }
    return real(input, init);
  };
}

/** In the page: how many legs `holdSignedLegs` has held so far. */
export function heldLegs(): number {
  return (globalThis as { e2eHeld?: number }).e2eHeld ?? 0;
}

/** In the page: lets the leg `holdSignedLegs` holds now go. */
export function releaseHeldLeg(): void {
  (globalThis as { e2eRelease?: () => void }).e2eRelease?.();
}

/**
 * In the page: its next key generations wait until `globalThis.e2eKeyGate()` is called (a slow
 * machine making a login's session key); `globalThis.e2eKeyAsked` is true once one was asked for.
 */
export function gateKeyGeneration(): void {
  const subtle = crypto.subtle;
  const generateKey = subtle.generateKey.bind(subtle);
  const w = globalThis as { e2eKeyGate?: () => void; e2eKeyAsked?: boolean };
  const gate = new Promise<void>((r) => (w.e2eKeyGate = r));
  subtle.generateKey = (async (...args: Parameters<typeof generateKey>) => {
    w.e2eKeyAsked = true;
    await gate;
    return generateKey(...args);
  }) as typeof subtle.generateKey;
}
