import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const apiTarget = `http://127.0.0.1:${process.env.TOLLGATE_API_PORT ?? 3000}`;

export default defineConfig({
  // Anchored to this file so `vite build --config dashboard/vite.config.ts` works from the repo root.
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: path.join(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    // Two pages: the dashboard, and the hosted checkout buyers open (kept apart so it stays small).
    rolldownOptions: {
      input: {
        index: path.join(import.meta.dirname, 'index.html'),
        checkout: path.join(import.meta.dirname, 'checkout.html'),
      },
    },
  },
  server: {
    proxy: {
      '/api': apiTarget,
      '/v1': apiTarget,
    },
  },
});
