// The signer's host configuration (src/signer/frame/config.ts: deny by default, every field checked),
// the page's headers (src/signer/host/headers.ts) and the proxy's CORS for the signer origin
// (src/proxy/cors.ts: exactly the configured origins, with credentials; others untouched).
import { describe, expect, it } from 'vitest';
import { withCors } from '../../src/proxy/cors.js';
import { parseSignerConfig } from '../../src/signer/frame/config.js';
import { signerPageHeaders } from '../../src/signer/host/headers.js';

const GOOD = { allowedParentOrigins: ['https://app.example'], baseUrl: 'https://app.example/api/', trustedKeys: ['04ab'], name: 'Acme' };

describe('parseSignerConfig', () => {
  it('keeps a good configuration (baseUrl without its trailing slash)', () => {
    expect(parseSignerConfig(GOOD)).toEqual({ ...GOOD, baseUrl: 'https://app.example/api' });
    expect(parseSignerConfig({ ...GOOD, colors: { accent: '#123456' }, logoUrl: '/logo.svg' }).colors).toEqual({ accent: '#123456' });
  });
  it.each([
    ['no origins', { ...GOOD, allowedParentOrigins: [] }, /allowedParentOrigins/],
    ['a wildcard', { ...GOOD, allowedParentOrigins: ['*'] }, /allowedParentOrigins/],
    ['an origin with a path', { ...GOOD, allowedParentOrigins: ['https://app.example/'] }, /allowedParentOrigins/],
    ['a relative proxy', { ...GOOD, baseUrl: '/api' }, /baseUrl/],
    ['no trusted keys', { ...GOOD, trustedKeys: [] }, /trustedKeys/],
    ['a colour that is CSS', { ...GOOD, colors: { accent: 'red; background: url(x)' } }, /colors.accent/],
    ['a logo elsewhere over http', { ...GOOD, logoUrl: 'http://evil.example/x.png' }, /logoUrl/],
    ['not an object', 'x', /JSON object/],
  ])('refuses %s', (_, raw, message) => {
    expect(() => parseSignerConfig(raw)).toThrow(message);
  });
});

describe('signerPageHeaders', () => {
  it('names the allowed parents in frame-ancestors and the proxy in connect-src; no inline script', () => {
    const h = signerPageHeaders({ ...GOOD, allowedParentOrigins: ['https://a.example', 'https://b.example'] });
    expect(h['Content-Security-Policy']).toContain('frame-ancestors https://a.example https://b.example');
    expect(h['Content-Security-Policy']).toContain("connect-src 'self' https://app.example");
    expect(h['Content-Security-Policy']).toContain("script-src 'self';");
    expect(h['Content-Security-Policy']).not.toContain('unsafe');
    expect(h['Origin-Agent-Cluster']).toBe('?1');
  });
});

describe('withCors', () => {
  const SIGNER = 'https://signer.app.example';
  const proxy = Object.assign(async (request: Request) => new Response(JSON.stringify({ method: request.method }), { status: 200, headers: { 'content-type': 'application/json', date: 'Sat, 28 Nov 2026 00:00:00 GMT' } }), { prefix: '/api', maxBodyBytes: 1024 });
  const handler = withCors(proxy, { origins: [SIGNER] });

  it('answers the signer origin\'s preflight with credentials and the wallet headers', async () => {
    const res = await handler(new Request('https://app.example/api/x', { method: 'OPTIONS', headers: { origin: SIGNER, 'access-control-request-method': 'PATCH' } }));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SIGNER);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-headers')).toContain('Service-Wallet-Signature');
  });
  it('refuses the preflight of any other origin, and adds no CORS header to its requests', async () => {
    const pre = await handler(new Request('https://app.example/api/x', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'PATCH' } }));
    expect(pre.status).toBe(403);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const res = await handler(new Request('https://app.example/api/x', { headers: { origin: 'https://evil.example' } }));
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.json()).toEqual({ method: 'GET' });
  });
  it('exposes Date to the signer origin and keeps the proxy\'s limits', async () => {
    const res = await handler(new Request('https://app.example/api/x', { method: 'POST', body: '{}', headers: { origin: SIGNER } }));
    expect(res.headers.get('access-control-allow-origin')).toBe(SIGNER);
    expect(res.headers.get('access-control-expose-headers')).toContain('Date');
    expect(res.headers.get('vary')).toContain('Origin');
    expect(handler.prefix).toBe('/api');
    expect(handler.maxBodyBytes).toBe(1024);
  });
  it('refuses a configuration without exact origins', () => {
    expect(() => withCors(proxy, { origins: [] })).toThrow(/origins/);
    expect(() => withCors(proxy, { origins: ['*'] })).toThrow(/origins/);
  });
});
