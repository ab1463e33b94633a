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
    // No source maps in the served build: 1.2 MB nobody needs over a tunnel (the server refuses .map anyway).
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
});
