// Worker entry when running from source: workers do not inherit the parent's TypeScript hooks.
// (The bundled CLI uses dist-cli/prerender-worker.js, built from prerender-worker.ts.)
import { register } from 'tsx/esm/api';

register();
const worker = await import('./prerender-worker.ts');
export default worker.default;
