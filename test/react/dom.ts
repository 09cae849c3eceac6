// What the React browser tests share: roots mounted into the page and removed after each test,
// reading a `data-id` element's text, and a prompt that shows the pending signature's purpose.
import { createElement as h, useEffect, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach } from 'vitest';
import { usePendingSignature } from '../../src/react/index.js';

/** Run after each test, last first (roots unmounted, wallets disposed). */
export const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0).reverse()) c();
});

/** Renders `node` into a new element of the page (unmounted and removed after the test). */
export function mount(node: ReactNode): { root: Root; el: HTMLElement } {
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  root.render(node);
  cleanup.push(() => {
    root.unmount();
    el.remove();
  });
  return { root, el };
}

/** The text of the element with `data-id="id"` under `el`. */
export const text = (el: HTMLElement, id: string): string | null | undefined => el.querySelector(`[data-id="${id}"]`)?.textContent;

/** A prompt showing the first pending signature's purpose (`data-id="pending"`), or `none`. */
export function PendingPurpose(): ReactNode {
  const pending = usePendingSignature();
  return h('p', { 'data-id': 'pending' }, pending?.purpose ?? 'none');
}

/**
 * Holds the next call of `obj[method]` until the returned `release()`: a test sees the hook's busy
 * step on screen, then lets the call go on (no timing assumed).
 */
export function holdNextCall<K extends string>(obj: Record<K, (...args: never[]) => Promise<unknown>>, method: K): { release: () => void } {
  const original = obj[method];
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  obj[method] = (async (...args: never[]) => {
    obj[method] = original;
    await held;
    return original(...args);
  }) as never;
  return { release: () => release() };
}

/**
 * A component that notes when its effects ran: the passive effects of one commit run together, so
 * render it with a prompt to know the prompt is attached (text on screen comes before effects).
 */
export function effectsMarker(): { Marker: () => ReactNode; ran: () => boolean } {
  let ran = false;
  return {
    Marker: () => (useEffect(() => void (ran = true), []), null),
    ran: () => ran,
  };
}
