/** The frame of one action card: title, explanation, its own status line. */
import { h, status, type Status } from '../../dom.js';

export interface Section {
  el: HTMLElement;
  dispose?: () => void;
}

export function frame(id: string, title: string, intro: string): { el: HTMLElement; body: HTMLElement; s: Status } {
  const s = status(`${id}-status`);
  const body = h('div', { class: 'section-body' });
  const el = h('section', { class: 'card', 'aria-labelledby': `${id}-title`, testid: `section-${id}` }, h('h2', { id: `${id}-title` }, title), h('p', { class: 'muted small' }, intro), body, s.el);
  return { el, body, s };
}
