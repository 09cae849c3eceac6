/**
 * A browser's cookie jar over a fetch (the network's, or a handler called in-process): keeps what
 * the app sets (a `Max-Age=0` line removes it) and sends it back on every later request. Enough
 * for the login cookies of the email-first proxy (no paths, domains or expiry kept).
 */
export function cookieJarFetch(send: (request: Request) => Promise<Response> = (request) => globalThis.fetch(request)): { fetch: typeof globalThis.fetch; jar: Map<string, string> } {
  const jar = new Map<string, string>();
  const fetchWithJar: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await send(new Request(request, { headers }));
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (/max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, pair.slice(eq + 1));
    }
    return response;
  };
  return { fetch: fetchWithJar, jar };
}
