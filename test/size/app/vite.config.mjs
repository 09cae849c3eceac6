// The Vite consumer of `npm run size`: a plain production build. The module-preload polyfill is off
// so that the startup chunks hold the library and the few lines of the app, nothing else of Vite's.
import { defineConfig } from 'vite';

export default defineConfig({
  logLevel: 'warn',
  build: { modulePreload: { polyfill: false }, outDir: 'dist', emptyOutDir: true, manifest: true },
});
