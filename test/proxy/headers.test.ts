import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, BASIC, errorBody, harness } from './harness.js';
import { startUpstream, type Upstream } from './upstream.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());

const STAMP = 'eyJwdWJsaWNLZXkiOiIwMmFiIiwic2NoZW1lIjoiU0lHTkFUVVJFX1NDSEVNRV9US19BUElfUDI1NiIsInNpZ25hdHVyZSI6IjMwNDQifQ';

describe('request headers', () => {
  it('forwards the wallet headers, adds Basic credentials, drops the rest', async () => {
    const { call } = harness(upstream);
    const before = upstream.received.length;
    const response = await call(`/internal-accounts/${ACCOUNT}`, {
      method: 'PATCH',
      headers: {
        'Service-Wallet-Signature': STAMP,
        'Request-Id': 'Request:9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
        'Idempotency-Key': 'idem-42',
        'Content-Type': 'application/json; charset=utf-8',
        Accept: 'application/json',
        Authorization: 'Bearer caller-token',
        Cookie: 'demo_session=abc',
        Connection: 'keep-alive, X-Drop-Me',
        'Keep-Alive': 'timeout=5',
        'Proxy-Authorization': 'Basic eHh4Onl5eQ==',
        TE: 'trailers',
        Trailer: 'Expires',
        Upgrade: 'websocket',
        'X-Drop-Me': '1',
        'X-Forwarded-For': '10.0.0.1',
        'User-Agent': 'caller-agent',
      },
      body: '{"privateEnabled":true}',
    });
    expect(response.status).toBe(200);
    const got = upstream.received[before];
    expect(got).toBeDefined();
    const h = got?.headers ?? {};
    expect(h['service-wallet-signature']).toBe(STAMP);
    expect(h['request-id']).toBe('Request:9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a');
    expect(h['idempotency-key']).toBe('idem-42');
    expect(h['content-type']).toBe('application/json; charset=utf-8');
    expect(h['accept']).toBe('application/json');
    expect(h['authorization']).toBe(BASIC);
    for (const dropped of ['cookie', 'keep-alive', 'proxy-authorization', 'te', 'trailer', 'upgrade', 'x-drop-me', 'x-forwarded-for']) {
      expect(h[dropped], dropped).toBeUndefined();
    }
    expect(h['user-agent']).not.toBe('caller-agent');
    expect(h['connection']).not.toContain('X-Drop-Me');
    expect(h['host']).toBe(new URL(upstream.url).host);
  });

  it('adds credentials even when the caller sends none', async () => {
    const { call } = harness(upstream);
    const before = upstream.received.length;
    await call(`/auth/sessions?accountId=${ACCOUNT}`);
    expect(upstream.received[before]?.headers['authorization']).toBe(BASIC);
  });

  it('uses a configured signature header name instead of the default', async () => {
    const { call } = harness(upstream, { signatureHeader: 'Acme-Wallet-Signature', forwardHeaders: ['Accept-Language'] });
    const before = upstream.received.length;
    await call('/quotes/Quote:1/execute', {
      method: 'POST',
      headers: { 'Acme-Wallet-Signature': STAMP, 'Service-Wallet-Signature': 'other', 'Accept-Language': 'fr' },
    });
    const h = upstream.received[before]?.headers ?? {};
    expect(h['acme-wallet-signature']).toBe(STAMP);
    expect(h['service-wallet-signature']).toBeUndefined();
    expect(h['accept-language']).toBe('fr');
  });
});

describe('response headers', () => {
  it('passes status, body, Content-Type, Retry-After and Date back; drops Set-Cookie and others', async () => {
    const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
    upstream.respond((_r, res) => {
      res.writeHead(429, {
        'content-type': 'application/problem+json',
        'retry-after': '7',
        date,
        'set-cookie': ['upstream_session=1; HttpOnly', 'other=2'],
        'x-upstream-internal': 'node-17',
        'access-control-allow-origin': '*',
        location: 'http://elsewhere.test/',
      });
      res.end('{"code":"RATE_LIMITED","reason":"slow down"}');
    });
    try {
      const { call } = harness(upstream);
      const response = await call('/auth/credentials/AuthMethod:1/challenge', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(429);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('retry-after')).toBe('7');
      expect(response.headers.get('date')).toBe(date);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(response.headers.get('x-upstream-internal')).toBeNull();
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toBe('{"code":"RATE_LIMITED","reason":"slow down"}');
    } finally {
      upstream.respond((_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    }
  });

  it('passes a 204 back with no body, and a 202 challenge unchanged', async () => {
    const challenge = '{"payloadToSign":"{\\"a\\": 1}","requestId":"Request:1","expiresAt":"2030-01-01T00:00:00Z"}';
    let n = 0;
    upstream.respond((_r, res) => {
      n++;
      if (n === 1) {
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end(challenge);
      } else {
        res.writeHead(204);
        res.end();
      }
    });
    const { call } = harness(upstream);
    const first = await call('/auth/sessions/Session:1', { method: 'DELETE' });
    expect(first.status).toBe(202);
    expect(await first.text()).toBe(challenge);
    const second = await call('/auth/sessions/Session:1', { method: 'DELETE', headers: { 'Service-Wallet-Signature': STAMP, 'Request-Id': 'Request:1' } });
    expect(second.status).toBe(204);
    expect(second.body).toBeNull();
  });

  it('passes a non-JSON upstream answer through with its status', async () => {
    upstream.respond((_r, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
    });
    const { call } = harness(upstream);
    const response = await call('/quotes/Quote:1');
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toBe('<html>maintenance</html>');
  });

  it('does not follow an upstream redirect (the credentials would go with it)', async () => {
    const elsewhere = await startUpstream();
    try {
      upstream.respond((_r, res) => {
        res.writeHead(307, { location: `${elsewhere.url}/quotes` });
        res.end();
      });
      const { call } = harness(upstream);
      const response = await call('/quotes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(307);
      expect(response.headers.get('location')).toBeNull();
      expect(elsewhere.received).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('bodies', () => {
  it('forwards the body byte for byte (spacing, key order, escapes, non-ASCII)', async () => {
    upstream.respond((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const { call } = harness(upstream);
    const text = '{ "type":"EMAIL_OTP" ,\n\t"accountId" : "' + ACCOUNT + '", "z":1.50, "a":"\\u00e9t\u00e9 \\/ \u{1F511}", "n":[1e3, -0.0] }';
    const bytes = new TextEncoder().encode(text);
    const before = upstream.received.length;
    const response = await call('/auth/credentials', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    expect(response.status).toBe(200);
    const got = upstream.received[before];
    expect(got?.body.equals(Buffer.from(bytes))).toBe(true);
    expect(got?.headers['content-length']).toBe(String(bytes.byteLength));
  });

  it('sends no body for a DELETE without one, and the same DELETE twice identically', async () => {
    const { call } = harness(upstream);
    const before = upstream.received.length;
    await call('/auth/credentials/AuthMethod:1', { method: 'DELETE' });
    await call('/auth/credentials/AuthMethod:1', { method: 'DELETE', headers: { 'Service-Wallet-Signature': STAMP, 'Request-Id': 'Request:2' } });
    expect(upstream.received[before]?.body.byteLength).toBe(0);
    expect(upstream.received[before + 1]?.body.byteLength).toBe(0);
    expect(upstream.received[before + 1]?.url).toBe(upstream.received[before]?.url);
  });

  it('refuses a body that is not declared as JSON (415) or is not JSON (400)', async () => {
    const { call } = harness(upstream);
    const before = upstream.received.length;
    const form = await call('/quotes', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'accountId=x' });
    expect(form.status).toBe(415);
    expect((await errorBody(form)).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const broken = await call('/quotes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(broken.status).toBe(400);
    expect((await errorBody(broken)).code).toBe('INVALID_INPUT');
    const latin1 = await call('/quotes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array([0x22, 0xe9, 0x22]) });
    expect(latin1.status).toBe(400);
    expect(upstream.received.length).toBe(before);
  });

  it('refuses a body with a repeated key in any object', async () => {
    const { call } = harness(upstream);
    const before = upstream.received.length;
    for (const body of ['{"accountId":"a","accountId":"b"}', '{"source":{"accountId":"a","x":{"k":1},"accountId":"b"}}', '[{"k":1,"k":2}]', '{"a\\u0062":1,"ab":2}']) {
      const response = await call('/quotes', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status, body).toBe(400);
      expect((await errorBody(response)).code).toBe('INVALID_INPUT');
    }
    // The same key in sibling objects, and key-like string values, are fine.
    const fine = await call('/quotes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":{"k":1},"b":{"k":2},"c":["k","k"],"d":"k","k":"{\\"k\\":1,"}' });
    expect(fine.status).toBe(200);
    expect(upstream.received.length).toBe(before + 1);
  });
});
