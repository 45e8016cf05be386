// Worker entry when running from source (the bundled CLI uses dist-cli/site-compile-worker.js).
import { register } from 'tsx/esm/api';

register();
await import('./compile-worker.ts');
