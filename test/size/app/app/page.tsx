import { WalletPanel } from './wallet-panel';

export default function Page() {
  return <WalletPanel />;
}
