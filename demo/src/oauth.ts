/**
 * OAuth through the sandbox's test sign-in page, as a full-page redirect: the page leaves for the
 * identity provider and comes back to `/#id_token=…&state=…`. What the round trip is for (log in,
 * or add the credential) and the anti-forgery `state` wait in sessionStorage.
 */
import type { Me } from './api.js';

const KEY = 'demo.oauth';

export type OAuthPurpose = 'login' | 'add';

interface Pending {
  state: string;
  purpose: OAuthPurpose;
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Leaves for the sign-in page. `nonce`: the wallet's (login) or any random one (adding). */
export function redirectToSignIn(me: Me, purpose: OAuthPurpose, nonce: string = randomHex(32)): void {
  if (!me.oauth) throw new Error('No test sign-in page: OAuth needs the sandbox');
  const pending: Pending = { state: randomHex(16), purpose };
  sessionStorage.setItem(KEY, JSON.stringify(pending));
  const url = new URL(me.oauth.authorizeUrl);
  url.searchParams.set('nonce', nonce);
  url.searchParams.set('redirect_uri', `${location.origin}/`);
  url.searchParams.set('state', pending.state);
  if (me.customer.email) url.searchParams.set('email', me.customer.email);
  location.assign(url.toString());
}

export type OAuthReturn = { purpose: OAuthPurpose; idToken: string } | { error: string };

/**
 * Reads (and removes from the address bar) a sign-in result in the URL fragment; null when the
 * page was not opened by one.
 */
export function takeOAuthReturn(): OAuthReturn | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const idToken = fragment.get('id_token');
  if (idToken === null) return null;
  const state = fragment.get('state');
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  const raw = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  if (!pending || pending.state !== state) return { error: 'The sign-in answer does not match a sign-in started in this tab, so it was ignored.' };
  return { purpose: pending.purpose, idToken };
}
