import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  build: {
    // The polyfill is an inline script: the dashboard's CSP allows none (evergreen browsers need no polyfill).
    modulePreload: { polyfill: false },
    // Every asset is a file under /assets/ (data: URLs would need a wider CSP).
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
