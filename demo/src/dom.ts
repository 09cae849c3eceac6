/** A tiny element builder: text always goes in as text (never parsed as HTML). */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'testid') el.setAttribute('data-testid', String(value));
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? String(c) : c);
  }
}

/** Appends children, skipping null/false (for optional parts). */
export function add(el: Element, ...children: Child[]): void {
  append(el, children);
}

/** Replaces an element's content. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} is missing from index.html`);
  return el as T;
}

/** A labelled input. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLElement {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  const hintEl = hint ? h('small', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hintEl);
}

/** A status line for one form: errors in red (role=alert), notes neutral. */
export interface Status {
  readonly el: HTMLElement;
  error(message: string): void;
  note(message: string): void;
  clear(): void;
}

export function status(testid: string): Status {
  const el = h('p', { class: 'status', testid, role: 'status', 'aria-live': 'polite', hidden: true });
  return {
    el,
    error(message) {
      el.className = 'status error';
      el.dataset.state = 'error';
      el.setAttribute('role', 'alert');
      el.textContent = message;
      el.hidden = false;
    },
    note(message) {
      el.className = 'status note';
      el.dataset.state = 'note';
      el.setAttribute('role', 'status');
      el.textContent = message;
      el.hidden = false;
    },
    clear() {
      delete el.dataset.state;
      el.textContent = '';
      el.hidden = true;
    },
  };
}

/** Runs `task` with the button disabled and showing `busyText`; returns the task's result. */
export async function busy<T>(button: HTMLButtonElement, busyText: string, task: () => Promise<T>): Promise<T> {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  button.textContent = busyText;
  try {
    return await task();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    button.textContent = label;
  }
}
