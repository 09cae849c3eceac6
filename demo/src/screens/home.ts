/**
 * Wallet home: balance, the current session with a countdown on the service's clock, refresh,
 * logout, the account's sessions and "sign out other devices"; in sandbox mode a clock tool for
 * expiry demos.
 */
import { demoApi } from '../api.js';
import type { App, Screen } from '../app.js';
import { formatRemaining } from '../clock.js';
import { add, busy, field, h, replace, status } from '../dom.js';
import { formatMoney, formatTime, shortId, TYPE_LABEL, type Money } from '../format.js';
import { showFlash } from './flash.js';

function walletBalance(app: App): Money | undefined {
  const account = app.me?.accounts.find((a) => a.id === app.me?.walletAccountId);
  return account?.balance as Money | undefined;
}

export const homeScreen: Screen = (app: App, container: HTMLElement) => {
  const s = status('home-status');
  showFlash(app, s);
  const wallet = app.wallet!;
  const accountId = app.accountId;

  // Balance
  const balance = h('p', { class: 'balance', testid: 'balance' }, formatMoney(walletBalance(app)));
  const reload = h('button', { type: 'button', testid: 'balance-refresh' }, 'Reload');
  reload.addEventListener('click', () =>
    void busy(reload, 'Loading…', async () => {
      try {
        await app.loadMe();
        balance.textContent = formatMoney(walletBalance(app));
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );

  // Session
  const facts = h('dl', { class: 'facts', testid: 'session-facts' });
  const countdown = h('span', { class: 'countdown', testid: 'session-countdown', 'aria-live': 'off' }, '—');
  const paint = () => {
    const session = wallet.session(accountId);
    if (!session) return;
    replace(
      facts,
      h('dt', {}, 'Logged in with'),
      h('dd', { testid: 'session-credential' }, TYPE_LABEL[session.credentialType] ?? session.credentialType),
      h('dt', {}, 'Session'),
      h('dd', { testid: 'session-id', title: session.id }, shortId(session.id)),
      h('dt', {}, 'Expires (service time)'),
      h('dd', {}, formatTime(session.expiresAt)),
    );
  };
  const tick = () => {
    const session = wallet.session(accountId);
    if (!session) return;
    // The service's clock, estimated by the wallet from the Date header of every answer.
    const left = Date.parse(session.expiresAt) - wallet.serverNow();
    countdown.textContent = left > 0 ? formatRemaining(left) : 'expired';
    countdown.classList.toggle('low', left < 5 * 60_000);
    if (countdown.dataset.session !== session.id) {
      countdown.dataset.session = session.id;
      paint();
    }
  };
  tick();
  const timer = window.setInterval(tick, 1000);

  const refresh = h('button', { type: 'button', testid: 'session-refresh' }, 'Refresh session');
  refresh.addEventListener('click', () =>
    void busy(refresh, 'Refreshing…', async () => {
      s.clear();
      try {
        const next = await wallet.refresh(accountId);
        tick();
        s.note(`New session ${shortId(next.id)}; the old one has ended.`);
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );
  const logout = h('button', { type: 'button', testid: 'logout' }, 'Log out');
  logout.addEventListener('click', () =>
    void busy(logout, 'Logging out…', async () => {
      try {
        await wallet.logout(accountId);
        app.flash = { text: 'You are logged out.', tone: 'note' };
        app.go('login');
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );

  // Sessions of the account
  const list = h('div', { testid: 'sessions' });
  const listSessions = h('button', { type: 'button', testid: 'sessions-list' }, 'Show active sessions');
  const showSessions = async () => {
    const sessions = await wallet.listSessions(accountId);
    const held = wallet.session(accountId)?.id;
    replace(
      list,
      h(
        'ul',
        { class: 'rows' },
        ...sessions.map((x) =>
          h(
            'li',
            { testid: 'session-row', 'data-id': x.id },
            h('b', {}, TYPE_LABEL[x.type] ?? x.type),
            ` ${x.nickname} · until ${formatTime(x.expiresAt)} `,
            x.id === held ? h('span', { class: 'tag' }, 'this browser') : null,
          ),
        ),
      ),
      h('p', { class: 'small muted', testid: 'sessions-count' }, `${sessions.length} active session${sessions.length === 1 ? '' : 's'} on the service.`),
    );
  };
  listSessions.addEventListener('click', () =>
    void busy(listSessions, 'Loading…', async () => {
      s.clear();
      try {
        await showSessions();
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );
  const others = h('button', { type: 'button', testid: 'sign-out-others' }, 'Sign out other devices');
  others.addEventListener('click', () =>
    void busy(others, 'Signing out…', async () => {
      s.clear();
      try {
        const n = await wallet.signOutOtherDevices(accountId);
        s.note(n === 0 ? 'No other device had a session.' : `Ended ${n} session${n === 1 ? '' : 's'} on other devices.`);
        await showSessions();
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );

  // Sandbox clock
  let clockTool: HTMLElement | null = null;
  if (app.me?.sandbox) {
    const seconds = h('input', { type: 'number', min: 1, step: 1, value: 600, testid: 'clock-seconds' });
    const advance = h('button', { type: 'button', testid: 'clock-advance' }, 'Advance the sandbox clock');
    advance.addEventListener('click', () =>
      void busy(advance, 'Advancing…', async () => {
        s.clear();
        try {
          const { now } = await demoApi.advanceClock(Number(seconds.value));
          // The wallet learns the new time from the next answer's Date header (and may then refresh
          // or expire the session): listing the sessions is that answer.
          await showSessions();
          tick();
          s.note(`Sandbox time is now ${formatTime(now)}.`);
        } catch (e) {
          app.fail(s, e);
        }
      }),
    );
    clockTool = h('section', { class: 'card', 'aria-labelledby': 'clock-title' }, h('h2', { id: 'clock-title' }, 'Sandbox clock'), h('p', { class: 'muted small' }, 'Move the service’s time forward to watch the session refresh itself, or expire (15 minutes).'), field('Seconds', seconds), h('div', { class: 'row' }, advance));
  }

  const me = app.me!;
  add(
    container,
    h('h1', {}, 'Wallet'),
    h('p', { class: 'lead' }, `${String(me.customer.fullName ?? me.customer.email ?? '')}`),
    s.el,
    h('section', { class: 'card', 'aria-labelledby': 'balance-title' }, h('h2', { id: 'balance-title' }, 'Balance'), balance, h('p', { class: 'small muted', title: accountId }, `Embedded wallet ${shortId(accountId)}`), h('div', { class: 'row' }, reload)),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'session-title' },
      h('h2', { id: 'session-title' }, 'Session'),
      h('p', { class: 'countdown-line' }, 'Time left: ', countdown),
      facts,
      h('div', { class: 'row' }, refresh, logout),
    ),
    h('section', { class: 'card', 'aria-labelledby': 'devices-title' }, h('h2', { id: 'devices-title' }, 'Devices'), h('div', { class: 'row' }, listSessions, others), list),
    clockTool,
  );
  return () => window.clearInterval(timer);
};
