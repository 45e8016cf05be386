// @ts-check
import { defineConfig } from 'astro/config';

// The site is static and reads only the data directory (AGENT_LOGBOOK_DATA, set by the CLI).
// Stylesheets are always external files so the Content-Security-Policy can forbid inline code.
export default defineConfig({
  // The site layer: pages, components, layouts and styles live in src/site/ beside the TypeScript they call.
  srcDir: './src/site',
  output: 'static',
  trailingSlash: 'always',
  build: { format: 'directory', inlineStylesheets: 'never' },
  devToolbar: { enabled: false },
  vite: { build: { assetsInlineLimit: 0 } },
});
