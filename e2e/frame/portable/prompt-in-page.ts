/**
 * What the prompts spec (06-prompts.spec.ts) runs inside the pages, as self-contained functions of
 * one JSON argument (every driver passes one): the app's call of a wallet method, the app's own
 * requests, and, in the signer frame or its approval window, the prompt read as a person (or a
 * screen reader) meets it: the dialog by its role and name, its heading, its labelled lines, its
 * buttons by their text.
 */

/** Starts `window.t.wallet[method](...args)` as the app's code would; its outcome (plain JSON) waits in `window.t.call`. */
export function callInPage([method, args]: readonly [string, unknown[]]): void {
  const wallet = window.t.wallet as Record<string, (...a: unknown[]) => Promise<unknown>>;
  window.t.settled = false;
  window.t.call = wallet[method]!(...args).then(
    (value) => ({ ok: true, value: JSON.parse(JSON.stringify(value ?? null)) as unknown }),
    (error: { code?: string; message?: string }) => ({ ok: false, code: error.code, message: error.message }),
  ).finally(() => {
    window.t.settled = true;
  });
}

/** Whether the call started by {@link callInPage} has its answer. */
export function callSettled(): boolean {
  return window.t.settled === true;
}

/** The app's own request to its server (`/demo/...` or the proxy under `/api`), with its cookie; resolves to the JSON answer. */
export async function appRequestInPage([method, path, body, idempotencyKey]: readonly [string, string, unknown?, string?]): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
  const res = await fetch(path, { method, credentials: 'same-origin', headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

export interface PromptSeen {
  /** The accessible name of the visible element of role `dialog`. */
  readonly dialog: string | null;
  /** The dialog's heading (`h1`). */
  readonly heading: string;
  /** Its labelled lines (`dt`/`dd`), in reading order. */
  readonly lines: [string, string][];
  /** Its buttons' text. */
  readonly buttons: string[];
}

/** The prompt on screen in this document, read by role and text (null when no dialog is shown). */
export function promptInPage(): PromptSeen | null {
  const text = (n: Element | null | undefined) => n?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
  const dialog = [...document.querySelectorAll('[role="dialog"]')].find((d) => d.checkVisibility());
  if (dialog === undefined) return null;
  const lines: [string, string][] = [];
  for (const dt of dialog.querySelectorAll('dt')) {
    const dd = dt.nextElementSibling;
    if (dd?.tagName === 'DD') lines.push([text(dt), text(dd)]);
  }
  return {
    dialog: dialog.getAttribute('aria-label') ?? (dialog.getAttribute('aria-labelledby') === null ? null : text(document.getElementById(dialog.getAttribute('aria-labelledby') as string))),
    heading: text(dialog.querySelector('h1, h2, [role="heading"]')),
    lines,
    buttons: [...dialog.querySelectorAll('button')].filter((b) => b.checkVisibility()).map((b) => text(b)),
  };
}

/**
 * For the kept picture only, after the words were read: the values that change from run to run
 * (ids, keys: `id`; times: `time`) under these labels get fixed stand-ins of the same shape — an
 * id's part after its last `:` becomes `0`s, a time's digits `0`s, its month `Jan`, its
 * half of the day `AM` — so the picture
 * compares with the kept one.
 */
export function standInsInPage(labels: readonly (readonly [string, 'id' | 'time'])[]): void {
  const kinds = new Map(labels);
  for (const dt of document.querySelectorAll('[role="dialog"] dt')) {
    const kind = kinds.get(dt.textContent?.trim() ?? '');
    const dd = dt.nextElementSibling;
    if (kind === undefined || dd === null) continue;
    const value = dd.textContent ?? '';
    // Every number of a time as two zeros or four (an hour or a day of one digit is as wide as one of two).
    if (kind === 'time') dd.textContent = value.replace(/[0-9]/g, '0').replace(/\b0{1,2}\b/g, '00').replace(/\b[A-Z][a-z]{2}\b/g, 'Jan').replace(/\b[AP]M\b/g, 'AM');
    else {
      const at = value.lastIndexOf(':') + 1;
      dd.textContent = value.slice(0, at) + value.slice(at).replace(/[0-9a-zA-Z]/g, '0');
    }
  }
}

/** Whether every stand-in of {@link standInsInPage} still holds (the prompt not rendered again since). */
export function standInsHeldInPage(labels: readonly (readonly [string, 'id' | 'time'])[]): boolean {
  const kinds = new Map(labels);
  for (const dt of document.querySelectorAll('[role="dialog"] dt')) {
    const kind = kinds.get(dt.textContent?.trim() ?? '');
    const value = dt.nextElementSibling?.textContent ?? '';
    if (kind === 'time' && /[1-9]/.test(value)) return false;
    if (kind === 'id' && /[1-9a-zA-Z]/.test(value.slice(value.lastIndexOf(':') + 1))) return false;
  }
  return true;
}

/**
 * A layout broken on purpose (the comparison's own test): the prompt's first labelled line moved
 * 12 px right by a style sheet (a constructed one: the page's CSP refuses inline styles). Resolves
 * to the line's left margin as computed, to show the break took.
 */
export function breakLayoutInPage(): string {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync('[role="dialog"] dd:first-of-type { margin-left: 12px !important; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const dd = document.querySelector('[role="dialog"] dd');
  return dd === null ? '' : getComputedStyle(dd).marginLeft;
}

/** Undoes {@link breakLayoutInPage}. */
export function mendLayoutInPage(): void {
  document.adoptedStyleSheets = document.adoptedStyleSheets.slice(0, -1);
}
