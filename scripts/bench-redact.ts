/**
 * Developer aid, not a test: throughput of secret redaction and path anonymization on ~10 MB of
 * transcript-like text (prose, code, JSON, shell output, base64 images, a few secrets).
 *   npx tsx scripts/bench-redact.ts [megabytes]
 */
import { createAnonymizer } from '../src/privacy/anonymize.ts';
import { createRedactor } from '../src/privacy/redact.ts';

const targetBytes = Number(process.argv[2] ?? 10) * 1024 * 1024;

let seed = 42;
const random = (): number => {
  // mulberry32: a small deterministic generator, so every run measures the same text
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const chars = (alphabet: string, n: number): string =>
  Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const WORDS =
  'the a to of and in that is for it with as was on be by this are or from at an which you not have but we can all your has more if will one about use when there their so what up out do some time them these than then into only other new could also two like make first any way file test build error function value type token password key secret user session config'.split(
    ' ',
  );

const prose = (): string =>
  Array.from({ length: 3 + Math.floor(random() * 8) }, () => {
    const sentence = Array.from({ length: 6 + Math.floor(random() * 14) }, () => pick(WORDS)).join(' ');
    return `${sentence[0]?.toUpperCase()}${sentence.slice(1)}.`;
  }).join(' ') + '\n\n';

const code = (): string =>
  `\`\`\`ts\nimport { readFile } from 'node:fs/promises';\nexport async function load${chars(ALNUM, 6)}(path: string): Promise<string[]> {\n  const text = await readFile(path, 'utf8');\n  const max_tokens = 4096;\n  const token_count = text.split(/\\s+/).length;\n  if (token_count > max_tokens) throw new Error('too long: ' + path);\n  return text.split('\\n').filter((line) => line.trim() !== '');\n}\n\`\`\`\n`;

const json = (): string =>
  JSON.stringify(
    {
      id: `${chars(HEX, 8)}-${chars(HEX, 4)}-${chars(HEX, 4)}-${chars(HEX, 4)}-${chars(HEX, 12)}`,
      file_path: `/Users/alice/code/app/src/${pick(WORDS)}/${pick(WORDS)}.ts`,
      commit: chars(HEX, 40),
      integrity: `sha512-${chars(B64, 86)}==`,
      usage: { input_tokens: Math.floor(random() * 10000), output_tokens: Math.floor(random() * 2000) },
      content: prose(),
    },
    null,
    2,
  ) + '\n';

const shell = (): string =>
  Array.from(
    { length: 10 + Math.floor(random() * 30) },
    () =>
      `${chars(HEX, 7)} ${pick(['fix', 'add', 'update', 'refactor'])} ${pick(WORDS)} ${pick(WORDS)} (alice <alice@example.com>)  /home/alice/code/app/${pick(WORDS)}.ts`,
  ).join('\n') + '\n';

const image = (): string => `data:image/png;base64,${chars(B64, 20_000 + Math.floor(random() * 60_000))}\n`;

const SECRETS = [
  () => `AWS_ACCESS_KEY_ID=AKIA${chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}\n`,
  () => `export GITHUB_TOKEN=ghp_${chars(ALNUM, 36)}\n`,
  () => `ANTHROPIC_API_KEY=sk-ant-api03-${chars(ALNUM, 93)}AA\n`,
  () => `DATABASE_URL=postgres://app:${chars(ALNUM, 16)}@db.internal:5432/app\n`,
  () => `{"password": "${chars(ALNUM, 14)}"}\n`,
];

const generators = [prose, prose, prose, code, code, json, json, shell, image];
const strings: string[] = [];
let total = 0;
let planted = 0;
while (total < targetBytes) {
  let s = '';
  const parts = 1 + Math.floor(random() * 6);
  for (let i = 0; i < parts; i++) s += pick(generators)();
  if (random() < 0.05) {
    s += pick(SECRETS)();
    planted++;
  }
  strings.push(s);
  total += s.length;
}

const redactor = createRedactor();
const anonymizer = createAnonymizer({ home: '/Users/alice', userName: 'alice', hostName: 'alices-mbp.local' });
const mb = total / (1024 * 1024);

function measure(label: string, run: () => number): void {
  run(); // warm up the regexes
  const start = performance.now();
  const found = run();
  const seconds = (performance.now() - start) / 1000;
  console.log(`${label.padEnd(40)} ${(mb / seconds).toFixed(1).padStart(7)} MB/s  (${found} changes)`);
}

console.log(`${strings.length} strings, ${mb.toFixed(1)} MB, ${planted} planted secrets`);
measure('redact (per string)', () => strings.reduce((n, s) => n + redactor.redact(s).findings.length, 0));
measure('anonymize (per string)', () => strings.reduce((n, s) => n + (anonymizer.anonymize(s) === s ? 0 : 1), 0));
measure('redact + anonymize (per string)', () =>
  strings.reduce((n, s) => {
    const r = redactor.redact(s);
    return n + r.findings.length + (anonymizer.anonymize(r.text) === r.text ? 0 : 1);
  }, 0),
);
// Tool input JSON is cleaned value by value: many short strings.
const pieces = strings.flatMap((s) => s.match(/[\s\S]{1,200}/g) ?? []);
measure(`redact + anonymize (${pieces.length} pieces)`, () =>
  pieces.reduce((n, s) => {
    const r = redactor.redact(s);
    return n + r.findings.length + (anonymizer.anonymize(r.text) === r.text ? 0 : 1);
  }, 0),
);
const whole = strings.join('');
measure('redact + anonymize (one string)', () => {
  const r = redactor.redact(whole);
  return r.findings.length + (anonymizer.anonymize(r.text) === r.text ? 0 : 1);
});
