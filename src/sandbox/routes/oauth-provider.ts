/**
 * The sandbox's stand-in OpenID provider, for demos and end-to-end tests (no platform auth: it
 * plays an outside identity provider that browsers reach directly).
 *
 * - `GET /sandbox/oauth/authorize?nonce=&redirect_uri=&state=&email=` → an HTML sign-in form
 *   (email prefilled when given). Submitting it (`POST /sandbox/oauth/authorize`, form-encoded)
 *   issues a token and answers `302` to `redirect_uri#id_token=<token>&state=<state>`.
 * - `POST /sandbox/oauth/token { email, nonce, aud? }` → `200 { oidcToken }` for tests.
 *
 * Tokens: `iss = https://accounts.google.com`, `aud` = the given `aud`, else the first configured
 * OAuth client id (`sandbox-oauth-client` by default; never the platform's API client id), `sub`
 * derived from the email (the same email always gives the same sub), fresh `iat`, the given
 * `nonce`, dummy signature — exactly what the sandbox's OIDC rules accept (domain/oidc.ts).
 * The form's button carries `data-testid="sandbox-sign-in"`: the e2e drivers find elements by test id.
 * `redirect_uri` must be an absolute http(s) URL.
 */
import { html, json, redirect, type RequestContext } from '../context.js';
import { providerAudience, sandboxOidcToken } from '../domain/oidc.js';
import { invalidField } from '../errors.js';
import type { Router } from '../router.js';
import { EMAIL_PATTERN, Fields } from '../validate.js';

const NONCE = { required: true, max: 256, pattern: /^[\x21-\x7e]+$/, format: 'must be printable ASCII' } as const;
const EMAIL = { max: 254, pattern: EMAIL_PATTERN, format: 'must be an email address' } as const;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function checkRedirect(f: Fields, uri: string | undefined): void {
  if (uri === undefined) return;
  let ok = false;
  try {
    const u = new URL(uri);
    ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hash === '';
  } catch {
    ok = false;
  }
  if (!ok) f.add('redirect_uri', 'FORMAT', 'must be an absolute http(s) URL without a fragment');
}

function authorizePage(ctx: RequestContext) {
  const f = Fields.of(Object.fromEntries(ctx.query), 'query');
  const nonce = f.string('nonce', NONCE);
  const redirectUri = f.string('redirect_uri', { required: true, max: 2048 });
  const state = f.string('state', { max: 1024 });
  const email = f.string('email', { max: 254 });
  checkRedirect(f, redirectUri);
  f.done('The authorization request has invalid parameters');
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox sign-in</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto;">
<h1>Sandbox identity provider</h1>
<p>Signs you in with a test OpenID token (issuer https://accounts.google.com). No password.</p>
<form method="post" action="authorize">
${hidden('nonce', f.req(nonce))}${hidden('redirect_uri', f.req(redirectUri))}${hidden('state', state ?? '')}
<label>Email <input type="email" name="email" required value="${escapeHtml(email ?? '')}" autocomplete="email"></label>
<button type="submit" id="sandbox-sign-in" data-testid="sandbox-sign-in">Sign in</button>
</form></body></html>`;
  return html(200, page);
}

function authorizeSubmit(ctx: RequestContext) {
  const f = Fields.of(ctx.body);
  const nonce = f.string('nonce', NONCE);
  const redirectUri = f.string('redirect_uri', { required: true, max: 2048 });
  const state = f.string('state', { max: 1024 });
  const email = f.string('email', { required: true, ...EMAIL });
  checkRedirect(f, redirectUri);
  f.done('The sign-in form has invalid fields');
  const token = sandboxOidcToken({ email: f.req(email), nonce: f.req(nonce), aud: providerAudience(ctx.state), now: ctx.state.clock.now() });
  const fragment = new URLSearchParams({ id_token: token, state: state ?? '' });
  return redirect(`${f.req(redirectUri)}#${fragment.toString()}`);
}

function issueToken(ctx: RequestContext) {
  const f = Fields.of(ctx.body);
  f.onlyKnown(['email', 'nonce', 'aud']);
  const email = f.string('email', { required: true, ...EMAIL });
  const nonce = f.string('nonce', NONCE);
  const aud = f.string('aud', { max: 255 });
  f.done();
  if (aud === '') throw invalidField('aud', 'LENGTH', 'must not be empty');
  const token = sandboxOidcToken({ email: f.req(email), nonce: f.req(nonce), aud: aud ?? providerAudience(ctx.state), now: ctx.state.clock.now() });
  return json(200, { oidcToken: token });
}

export function registerOauthProviderRoutes(router: Router): void {
  router.get('/sandbox/oauth/authorize', authorizePage, { auth: false });
  router.post('/sandbox/oauth/authorize', authorizeSubmit, { auth: false, form: true });
  router.post('/sandbox/oauth/token', issueToken, { auth: false });
}
