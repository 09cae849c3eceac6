'use client';
import { useEffect, useState } from 'react';

// The same page without the library: the chunks it loads are Next's and React's, which the size
// report subtracts from the wallet page's.
export function BaselinePanel() {
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => {
    setLines(['no wallet']);
  }, []);
  return (
    <div>
      <button onClick={() => setLines((all) => [...all, 'click'])}>Log in and sign</button>
      <pre>{lines.join('\n')}</pre>
    </div>
  );
}
