// The one page. A server component: it hands the client nothing secret and nothing built in. The
// client fetches /api/wallet-bootstrap at runtime, makes its wallet, and shows the email login or
// the account. What the browser holds (its session) the server does not know: the page renders
// `initializing` for it, and the browser takes over after hydration.
import { WalletApp } from './wallet-app';

export const dynamic = 'force-dynamic';

export default function Page() {
  return (
    <main>
      <h1>Example wallet</h1>
      <WalletApp />
    </main>
  );
}
