/** Actions: one card per signed action the wallet can do (each section in screens/actions/). */
import type { Screen } from '../app.js';
import { add, h, status } from '../dom.js';
import { accountSection } from './actions/account.js';
import { cardSection } from './actions/card.js';
import { contactSection } from './actions/contact.js';
import { exportSection } from './actions/export.js';
import { fundSection } from './actions/fund.js';
import { transferSection } from './actions/transfer.js';
import { showFlash } from './flash.js';

export const actionsScreen: Screen = (app, container) => {
  const s = status('actions-status');
  showFlash(app, s);
  const cleanups: (() => void)[] = [];
  const section = (built: { el: HTMLElement; dispose?: () => void } | null) => {
    if (built?.dispose) cleanups.push(built.dispose);
    return built?.el ?? null;
  };
  add(
    container,
    h('h1', {}, 'Actions'),
    h('p', { class: 'lead' }, 'Each of these is signed in this browser. Watch the request log: the first call, the 202 challenge, your signature, the signed retry.'),
    s.el,
    section(fundSection(app)),
    section(transferSection(app)),
    section(accountSection(app)),
    section(cardSection(app)),
    section(exportSection(app)),
    section(contactSection(app)),
  );
  return () => cleanups.forEach((f) => f());
};
