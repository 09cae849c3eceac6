/**
 * The app's shared state and its hash router. Screens get the `App` and a container; they return
 * a cleanup function for their timers.
 *
 * Routes: #/start, #/login, #/home, #/credentials, #/actions. Without a demo customer every route
 * shows start; without a wallet session the wallet routes show login.
 */
import { createWallet, type Wallet } from '../../src/index.js';
import type { FrameWallet } from '../../src/signer/parent/index.js';
import { asWallet, createFrameWallet } from './frame-mode.js';
import { ApiError, demoApi, type Me } from './api.js';
import type { Banners } from './banners.js';
import { byId, h, replace, type Status } from './dom.js';
import type { LegRow, RequestLog } from './log-panel.js';
import { humanMessage, errorCode, SESSION_GONE } from './messages.js';
import type { SignPrompt } from './sign-dialog.js';

export type Route = 'start' | 'login' | 'home' | 'credentials' | 'actions';
export type Screen = (app: App, container: HTMLElement) => (() => void) | void;

const WALLET_ROUTES: readonly Route[] = ['home', 'credentials', 'actions'];

export class App {
  me: Me | null = null;
  wallet: Wallet | null = null;
  /** Frame mode: the wallet in the signer frame (`wallet` is shaped over it); null in in-origin mode. */
  frame: FrameWallet | null = null;
  /** A message the next screen shows once (e.g. why the user is back at login). */
  flash: { text: string; tone: 'error' | 'note' } | null = null;
  /** Set while this tab runs a login itself (the login screen navigates when it is done). */
  loggingIn = false;
  private cleanup: (() => void) | undefined;
  private unsubscribe: (() => void)[] = [];
  private readonly meListeners = new Set<() => void>();

  constructor(
    readonly log: RequestLog,
    readonly sign: SignPrompt,
    readonly banners: Banners,
    private readonly screens: Record<Route, Screen>,
  ) {}

  get accountId(): string {
    const id = this.me?.walletAccountId;
    if (!id) throw new ApiError('NO_WALLET', 'This customer has no embedded wallet.', undefined);
    return id;
  }

  leg = (row: LegRow): void => this.log.leg(row);

  /** Loads who we are; (re)creates the wallet for this customer when needed. */
  async loadMe(): Promise<Me | null> {
    const me = await demoApi.me();
    this.setMe(me);
    return me;
  }

  setMe(me: Me | null): void {
    const changed = me?.customer.id !== this.me?.customer.id;
    this.me = me;
    if (changed) this.resetWallet();
    for (const listener of this.meListeners) listener();
  }

  /** Called after every reload of the customer and accounts (balances changed…); returns the unsubscribe. */
  onMe(listener: () => void): () => void {
    this.meListeners.add(listener);
    return () => this.meListeners.delete(listener);
  }

  private resetWallet(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    this.wallet?.dispose();
    this.wallet = null;
    this.frame = null;
    if (!this.me) return;
    if (this.me.signerUrl) this.frame = createFrameWallet(this.me.signerUrl);
    const wallet = this.frame ? asWallet(this.frame) : createWallet({
      baseUrl: '/api',
      trustedKeys: this.me.trustedKeys,
      onBeforeSign: (info) => this.sign.confirm(info),
      onRequest: (entry) => this.leg({ ...entry, source: 'wallet' }),
    });
    this.wallet = wallet;
    const toLogin = (text: string) => {
      if (WALLET_ROUTES.includes(this.route())) {
        this.flash = { text, tone: 'error' };
        this.go('login');
      }
    };
    this.unsubscribe.push(
      wallet.on('storage-fallback', ({ reason }) =>
        this.banners.sticky('banner-storage-fallback', `Keys cannot be saved in this browser (${reason}): the session lives in memory only and ends when you close or reload the tab.`),
      ),
      // 'logged-out' comes once the account has no session left here ('expired' is also sent for a
      // session that was not the current one, and before it is removed).
      wallet.on('logged-out', ({ reason }) => {
        if (reason === 'other-tab') toLogin('You logged out in another tab.');
        else if (reason === 'revoked') toLogin('This session was ended elsewhere (signed out from another device?). Log in again.');
        else if (reason === 'expired') toLogin('Your wallet session expired. Log in again.');
      }),
      wallet.on('key-evicted', () => toLogin('The browser deleted the session key. Log in again.')),
      wallet.on('refresh-failed', ({ error }) => this.banners.notice(`Automatic session refresh failed: ${humanMessage(error)}`, 'warn')),
      // The demo's proxy refused to end a wallet session (the demo sign-in expired): it stays to end,
      // and is ended once the user signs in to the demo again (the new wallet finishes it at load).
      wallet.on('end-refused', () => this.banners.notice('The demo’s server refused to end your wallet session: sign in to the demo again to finish logging out.', 'warn')),
      // Logged in from another tab while this one waits at login.
      wallet.on('session', () => {
        if (this.route() === 'login' && !this.loggingIn) this.go('home');
      }),
    );
  }

  /** Shows `error` in `status`; a lost session sends the user back to login with the message. */
  fail(status: Status, error: unknown): void {
    const text = humanMessage(error);
    if (SESSION_GONE.has(errorCode(error)) && this.route() !== 'login') {
      this.flash = { text, tone: 'error' };
      this.go('login');
      return;
    }
    if (errorCode(error) === 'LOGIN_REQUIRED') {
      this.setMe(null);
      this.flash = { text, tone: 'error' };
      this.go('start');
      return;
    }
    status.error(text);
  }

  route(): Route {
    const name = location.hash.replace(/^#\/?/, '').split('?')[0] as Route;
    return name in this.screens ? name : 'home';
  }

  go(route: Route): void {
    if (this.route() === route && location.hash !== '') this.render();
    else location.hash = `#/${route}`;
  }

  /** Which screen a route really shows, given who is here. */
  resolve(route: Route): Route {
    if (!this.me) return 'start';
    if (WALLET_ROUTES.includes(route) && !this.wallet?.session(this.me.walletAccountId ?? undefined)) return 'login';
    return route;
  }

  render(): void {
    this.cleanup?.();
    this.cleanup = undefined;
    const wanted = this.route();
    const shown = this.resolve(wanted);
    const main = byId('app');
    const container = h('div', { class: 'screen', testid: `screen-${shown}` });
    replace(main, container);
    this.renderNav(shown);
    this.cleanup = this.screens[shown](this, container) ?? undefined;
    document.title = `${shown[0]?.toUpperCase()}${shown.slice(1)} · Embedded wallet demo`;
    // Keyboard and screen-reader users land on the new screen (unless it focused a field itself).
    if (!main.contains(document.activeElement) || document.activeElement === main) main.focus({ preventScroll: true });
  }

  private renderNav(shown: Route): void {
    const nav = byId('nav');
    if (!this.me) return replace(nav);
    const logged = this.me.walletAccountId !== null && this.wallet?.session(this.me.walletAccountId) != null;
    const link = (route: Route, label: string) =>
      h('a', { href: `#/${route}`, testid: `nav-${route}`, 'aria-current': shown === route ? 'page' : undefined }, label);
    replace(nav, ...(logged ? [link('home', 'Wallet'), link('credentials', 'Credentials'), link('actions', 'Actions')] : [link('login', 'Log in')]), link('start', 'Customer'));
  }
}
