// The test app's page script (the parent, in frame mode): the library's frame entry, exposed to the
// tests, which drive it with page.evaluate the way an app's code (or an attacker's script in the
// app's origin) would.
import * as frame from '../../../src/signer/parent/index.js';

declare global {
  interface Window {
    frameLib: typeof frame;
    /** The signer page's URL, from the page's `?signer=` parameter. */
    signerUrl: string;
    /** Whatever the test keeps between evaluate calls. */
    t: Record<string, unknown>;
  }
}

window.frameLib = frame;
window.signerUrl = new URLSearchParams(location.search).get('signer') ?? '';
window.t = {};
document.body.dataset.ready = 'true';
