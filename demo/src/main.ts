/** Boot: who is here, restore the wallet's sessions, finish an OAuth round trip, then route. */
import { App, type Route, type Screen } from './app.js';
import { Banners } from './banners.js';
import { byId, h, replace } from './dom.js';
import { RequestLog } from './log-panel.js';
import { humanMessage } from './messages.js';
import { takeOAuthReturn, type OAuthReturn } from './oauth.js';
import { actionsScreen } from './screens/actions.js';
import { credentialsScreen } from './screens/credentials.js';
import { homeScreen } from './screens/home.js';
import { loginScreen } from './screens/login.js';
import { startScreen } from './screens/start.js';
import { SignPrompt } from './sign-dialog.js';

const screens: Record<Route, Screen> = { start: startScreen, login: loginScreen, home: homeScreen, credentials: credentialsScreen, actions: actionsScreen };

/** Sets the route before the first render without a hashchange event (which would render twice). */
function route(name: Route): void {
  history.replaceState(null, '', `#/${name}`);
}

async function finishOAuth(app: App, result: OAuthReturn): Promise<void> {
  if ('error' in result) {
    app.flash = { text: result.error, tone: 'error' };
    return;
  }
  const wallet = app.wallet;
  if (!wallet || !app.me) return;
  try {
    if (result.purpose === 'login') {
      app.loggingIn = true;
      await wallet.completeOAuth({ oidcToken: result.idToken });
      route('home');
    } else {
      const method = await wallet.addOAuthCredential({ accountId: app.accountId, oidcToken: result.idToken });
      app.flash = { text: `OAuth sign-in added for ${method.nickname}.`, tone: 'note' };
      route('credentials');
    }
  } catch (e) {
    app.flash = { text: humanMessage(e), tone: 'error' };
    route(result.purpose === 'login' ? 'login' : 'credentials');
  } finally {
    app.loggingIn = false;
  }
}

async function boot(): Promise<void> {
  const banners = new Banners();
  const log = new RequestLog(byId('log-panel'));
  const sign = new SignPrompt(() => log);
  log.addControl(sign.toggle);
  const app = new App(log, sign, banners, screens);
  const oauth = takeOAuthReturn();
  try {
    await app.loadMe();
    await app.wallet?.restore();
  } catch (e) {
    banners.notice(humanMessage(e), 'warn');
  }
  if (app.me?.trustedKeys === 'skip-verification') banners.sticky('banner-unverified', 'No enclave keys are trusted: OTP and export bundle signatures are not verified.');
  if (oauth) await finishOAuth(app, oauth);
  window.addEventListener('hashchange', () => app.render());
  app.render();
}

boot().catch((e: unknown) => {
  replace(byId('app'), h('p', { class: 'status error', role: 'alert', testid: 'boot-error' }, `The demo failed to start: ${humanMessage(e)}`));
});
