import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is built once and served by both shells: loaded from disk by Electron
// (relative base) and over HTTP by the headless engine.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist-renderer',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
});
