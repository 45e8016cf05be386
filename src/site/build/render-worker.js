// Worker entry when running from source (the bundled CLI uses dist-cli/site-render-worker.js).
import { register } from 'tsx/esm/api';

register();
const worker = await import('./render-worker.ts');
export default worker.default;
