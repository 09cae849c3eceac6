// The example uses the package as an app would, from its build (dist/, `npm run build` first),
// through the package's own name: the aliases below stand for `npm install embedded-wallet-signer`.
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const dist = (path) => `${repo}dist/${path}`;

/** @type {import('next').NextConfig} */
export default {
  reactStrictMode: true,
  // TypeScript 7 has no JS API for Next's own type-check: `tsc -p examples/next-app` checks this app.
  typescript: { ignoreBuildErrors: true },
  turbopack: {
    root: repo,
    resolveAlias: {
      'embedded-wallet-signer/react': dist('react/index.js'),
      'embedded-wallet-signer/proxy': dist('proxy/index.js'),
      'embedded-wallet-signer/frame': dist('signer/parent/index.js'),
      'embedded-wallet-signer': dist('index.js'),
    },
  },
};
