// What `npm run size` builds and budgets: the bundlers an adopter uses, and the scenarios (how an app
// opens its wallet), each built alone by every bundler (scripts/size-consumers.mjs).
//
// STARTUP, the budgeted figure, the same for every bundler: the JavaScript a page fetches before any
// dynamic import() runs, i.e. the page's entry chunk(s) and every chunk they import statically,
// followed transitively:
//   Vite 8 and 7: the page's entry in the build manifest and its `imports` (not `dynamicImports`);
//   webpack 5:    the entrypoint's chunks (stats `entrypoints[page].assets`: its initial chunks);
//   esbuild:      the entry's output file and its `import-statement` imports (metafile);
//   Next.js:      the <script src> tags of the page's prerendered HTML.
// Each file is gzipped on its own (level 9, as served) and summed; from that sum, the same sum for the
// baseline page of the same build (the same page without the library: test/size/app/baseline.ts,
// app/baseline/) is subtracted, and a file both pages load counts in neither. What remains is what
// the library adds at startup, with the bundler's chunk-loading runtime that its lazy imports need.
// LAZY is every other JavaScript file of the page's build (what its dynamic imports load, with the
// chunks they import), for Next.js the chunks the startup chunks name, followed; TOTAL is both.
//
// Budgets are KB gz (1 KB = 1024 B) of the startup figure; over a budget fails `npm run size` (and so
// `npm test`). A bundler with no budget in a row is measured and reported only.

/** The consumer builds, in the order printed. `id` names the build's output folder and JSON key. */
export const BUNDLERS = [
  { id: 'vite8', label: 'Vite 8' }, // Rolldown
  { id: 'vite7', label: 'Vite 7' }, // Rollup (the devDependency `vite7`, an alias of vite@7)
  { id: 'next', label: 'Next.js' }, // `next build`, Turbopack
  { id: 'webpack', label: 'webpack 5' },
  { id: 'esbuild', label: 'esbuild' }, // bundle + splitting, ESM, minified
];

/**
 * One row per way an app opens its wallet. The consumer app (test/size/app/wallet-app.ts) calls
 * `openWallet()` at load, restores the sessions kept in this browser, and on a click logs in with an
 * email code and signs one action; `imports` and `open` become its generated `scenario.ts`:
 *
 *   import { <imports> } from 'embedded-wallet-signer';
 *   export const openWallet = () => <open>;
 *
 * A row whose `imports` the packed package does not export yet is skipped (said in the report).
 * `budgetKB` maps a bundler id to its startup budget.
 */
export const SCENARIOS = [
  {
    name: 'wallet',
    label: 'createWallet (keys in the app origin)',
    imports: ['createWallet'],
    open: "createWallet({ baseUrl: '/api/wallet', trustedKeys: ['04' + '00'.repeat(64)] })",
    // The figures measured when what sends a call left the startup code (src/transport/calls.ts),
    // + 0.1 KB: Vite 8 17.79, Vite 7 17.54, Next.js 17.67, webpack 5 17.76, esbuild 21.33 (from
    // 19.41, 20.00, 19.99, 20.06, 23.65). esbuild splits the startup code into one chunk per set of
    // lazy chunks sharing it (7 files, each gzipped alone), hence its larger figure.
    budgetKB: { vite8: 17.89, vite7: 17.64, next: 17.77, webpack: 17.86, esbuild: 21.43 },
  },
  {
    // Issue 32: the parent of frame mode adds at most 8 KB gz at startup (the frame's own bundle is
    // reported apart). Measured once the package exports signerFrame.
    name: 'frame-parent',
    label: 'frame mode parent: createWallet({ signer: signerFrame({ url }) })',
    imports: ['createWallet', 'signerFrame'],
    open: "createWallet({ signer: signerFrame({ url: 'https://signer.example/frame' }) })",
    budgetKB: { vite8: 8, vite7: 8, next: 8, webpack: 8, esbuild: 8 },
  },
];
