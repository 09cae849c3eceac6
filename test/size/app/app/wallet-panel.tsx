'use client';
import { useEffect, useRef, useState } from 'react';
import { startWallet } from '../wallet-app';

export function WalletPanel() {
  const [lines, setLines] = useState<string[]>([]);
  const app = useRef<ReturnType<typeof startWallet> | null>(null);
  useEffect(() => {
    app.current = startWallet((line) => setLines((all) => [...all, line]));
  }, []);
  return (
    <div>
      <button onClick={() => app.current?.loginAndSign('acc-1', '000000').catch((error: unknown) => setLines((all) => [...all, String(error)]))}>Log in and sign</button>
      <pre>{lines.join('\n')}</pre>
    </div>
  );
}
