// The in-origin library, served apart (/in-origin.js) and loaded only by the frame benchmark
// (e2e/frame/bench/), which compares a signed call made in the app's page with one through the
// frame. The frame tests never load it: the parent's network they search for secrets stays the
// frame entry's alone.
import * as inOrigin from '../../../src/index.js';

declare global {
  interface Window {
    inOriginLib: typeof inOrigin;
  }
}

window.inOriginLib = inOrigin;
