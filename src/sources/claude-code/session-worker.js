// Worker entry when running from source (the bundled CLI uses dist-cli/claude-session-worker.js).
import { register } from 'tsx/esm/api';

register();
const worker = await import('./session-worker.ts');
export default worker.default;
