// Worker entry when running from source (the bundled CLI uses dist-cli/site-search-worker.js).
import { register } from 'tsx/esm/api';

register();
const worker = await import('./site-shard-worker.ts');
export default worker.default;
