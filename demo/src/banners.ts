/** Page-wide banners: storage fallback (persistent), notices (dismissible). */
import { byId, h } from './dom.js';

export class Banners {
  constructor(private readonly root: HTMLElement = byId('banners')) {}

  /** Shows (once) a banner that stays until the page reloads. */
  sticky(testid: string, text: string, tone: 'warn' | 'info' = 'warn'): void {
    if (this.root.querySelector(`[data-testid="${testid}"]`)) return;
    this.root.append(h('div', { class: `banner ${tone}`, role: 'alert', testid }, text));
  }

  /** A dismissible notice; replaces the previous one. */
  notice(text: string, tone: 'warn' | 'info' = 'info'): void {
    this.root.querySelector('[data-testid="banner-notice"]')?.remove();
    const close = h('button', { type: 'button', class: 'link', 'aria-label': 'Dismiss', testid: 'banner-dismiss' }, '×');
    const el = h('div', { class: `banner ${tone}`, role: 'status', testid: 'banner-notice' }, h('span', {}, text), close);
    close.addEventListener('click', () => el.remove());
    this.root.append(el);
  }

  clearNotice(): void {
    this.root.querySelector('[data-testid="banner-notice"]')?.remove();
  }
}
