// POST /api/signup {email}: the app's own sign-up, which provisions the user's embedded wallet.
import { COOKIE, signUp } from '../../../lib/server';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  const body = (await request.json().catch(() => null)) as { email?: unknown } | null;
  if (typeof body?.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(body.email)) return Response.json({ code: 'INVALID_EMAIL' }, { status: 400 });
  const { token } = await signUp(body.email);
  return new Response(null, { status: 204, headers: { 'set-cookie': `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax` } });
}
