/**
 * Whether this browser tracks visibility (IntersectionObserver v2: occlusion, opacity, transforms;
 * Chromium does today). The guard (approve-button.ts) reads it, and so does the signing policy to
 * decide where a prompt is answered (approval-route.ts): a module of its own so that the page's
 * startup script has it without the guard's code, loaded with the first prompt.
 */
export function tracksVisibility(): boolean {
  return typeof IntersectionObserverEntry !== 'undefined' && 'isVisible' in IntersectionObserverEntry.prototype;
}
