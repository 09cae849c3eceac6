// The Vite consumer of `npm run size`, built by Vite 8 and Vite 7 alike (a plain object: no import
// of either): a plain production build of two pages, the wallet (index.html) and the baseline
// without the library. The module-preload polyfill is off so that the startup chunks hold the
// library and the few lines of the app, nothing else of Vite's.
export default {
  logLevel: 'warn',
  build: {
    modulePreload: { polyfill: false },
    emptyOutDir: true,
    manifest: true,
    rollupOptions: { input: { index: 'index.html', baseline: 'baseline.html' } },
  },
};
