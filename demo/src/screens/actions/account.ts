/** `privateEnabled` on the wallet account: `PATCH /internal-accounts/{id}`, a signed retry. */
import type { App } from '../../app.js';
import { busy, h } from '../../dom.js';
import { frame, type Section } from './section.js';

export function accountSection(app: App): Section {
  const { el, body, s } = frame('account', 'Private mode', 'Turns privateEnabled on or off for the wallet account (signed).');
  const account = app.me?.accounts.find((a) => a.id === app.me?.walletAccountId);
  let enabled = account?.privateEnabled === true;
  const state = h('p', { testid: 'private-state' });
  const toggle = h('button', { type: 'button', testid: 'private-toggle', 'aria-pressed': String(enabled) });
  const paint = () => {
    state.textContent = `privateEnabled is ${enabled ? 'ON' : 'OFF'}.`;
    toggle.textContent = enabled ? 'Turn private mode off' : 'Turn private mode on';
    toggle.setAttribute('aria-pressed', String(enabled));
  };
  paint();
  toggle.addEventListener('click', () =>
    void busy(toggle, 'Signing…', async () => {
      s.clear();
      try {
        const next = await app.wallet!.updateAccount(app.accountId, { privateEnabled: !enabled });
        enabled = next.privateEnabled === true;
        s.note(`Saved: privateEnabled is ${enabled ? 'on' : 'off'}.`);
        await app.loadMe().catch(() => undefined);
      } catch (e) {
        app.fail(s, e);
      }
    }).then(paint),
  );
  body.append(state, toggle);
  return { el };
}
