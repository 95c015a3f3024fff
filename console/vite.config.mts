/**
 * Builds the web console into dist/console (static files the hosts serve). `base: './'` makes every asset
 * URL relative, so the same build works at `/`, `/console/` and the Functions app's `/api/console/`.
 * Preact's JSX goes through Vite's own transform (no framework plugin needed).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const consoleFolder = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: consoleFolder,
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // Mermaid is large and loaded on demand; its chunks are split by Rollup, not by hand.
    chunkSizeWarningLimit: 4096,
    sourcemap: false,
  },
});
