import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The Fastify server owns every non-asset path in production; in dev we forward the same prefixes to it.
const serverTarget = process.env.MODELGATE_SERVER_URL ?? 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Semi's Form registers every field type (date pickers, uploads) in one shared chunk of ~700 kB.
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: {
      '/api': { target: serverTarget, changeOrigin: true },
      '/v1': { target: serverTarget, changeOrigin: true },
      '/pg': { target: serverTarget, changeOrigin: true },
    },
  },
});
