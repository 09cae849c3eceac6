/** Shows the app's one-time message (why the user landed here) in a screen's status line. */
import type { App } from '../app.js';
import type { Status } from '../dom.js';

export function showFlash(app: App, status: Status): void {
  const flash = app.flash;
  app.flash = null;
  if (!flash) return;
  if (flash.tone === 'error') status.error(flash.text);
  else status.note(flash.text);
}
