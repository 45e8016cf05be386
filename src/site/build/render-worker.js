// Worker entry when running from source (the bundled CLI uses dist-cli/site-render-worker.js).
import { register } from 'tsx/esm/api';

register();
await import('./render-worker.ts');
