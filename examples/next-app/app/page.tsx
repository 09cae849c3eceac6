// The one page. A server component: it knows the app's user from the app's own cookie, and hands
// the client what it needs for the wallet (the bootstrap: account, trusted enclave keys, proxy
// path). What the browser holds (its session) the server does not know: the page renders
// `initializing` for it, and the browser takes over after hydration.
import { cookies } from 'next/headers';
import { bootstrapFor, COOKIE, userOfToken } from '../lib/server';
import { SignUp } from './sign-up';
import { WalletApp } from './wallet-app';

export const dynamic = 'force-dynamic';

export default async function Page() {
  const user = userOfToken((await cookies()).get(COOKIE)?.value);
  return (
    <main>
      <h1>Example wallet</h1>
      {user ? <WalletApp boot={bootstrapFor(user)} email={user.email} /> : <SignUp />}
    </main>
  );
}
