/** Makes a payloadToSign readable: pretty JSON, or a JWT's header and claims, else the raw text. */

function b64urlJson(part: string): unknown {
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

export function decodePayload(payload: string): { kind: 'json' | 'jwt' | 'text'; text: string } {
  try {
    return { kind: 'json', text: JSON.stringify(JSON.parse(payload), null, 2) };
  } catch {
    // not JSON
  }
  const parts = payload.split('.');
  if (parts.length === 3) {
    try {
      const header = b64urlJson(parts[0] ?? '');
      const claims = b64urlJson(parts[1] ?? '');
      return { kind: 'jwt', text: `JWT header ${JSON.stringify(header, null, 2)}\nclaims ${JSON.stringify(claims, null, 2)}` };
    } catch {
      // not a JWT
    }
  }
  return { kind: 'text', text: payload };
}
