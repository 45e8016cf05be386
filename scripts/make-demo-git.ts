/**
 * Makes fixtures/messages/mini-agent a small git repository (gitignored, never committed) for the demo site:
 * the `read-hello` custom-agent session (fixtures/messages/read-hello.jsonl, cwd `mini-agent`) ran from
 * 2026-03-05T01:00:00Z to 01:00:05Z, and one commit falls inside it, so its page lists a commit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'messages', 'mini-agent');
if (existsSync(path.join(repo, '.git'))) process.exit(0);
mkdirSync(repo, { recursive: true });
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1' };
const git = (args: string[], when?: string) =>
  execFileSync('git', ['-C', repo, ...args], {
    env: { ...env, ...(when ? { GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when } : {}) },
    stdio: 'ignore',
  });
git(['init', '-q', '-b', 'main']);
git(['config', 'user.email', 'alice@example.com']);
git(['config', 'user.name', 'Alice']);
const commit = (file: string, text: string, message: string, when: string) => {
  writeFileSync(path.join(repo, file), text);
  git(['add', file], when);
  git(['commit', '-q', '-m', message], when);
};
commit('hello.py', "def greet():\n    return 'Hi'\n", 'Add greet()', '2026-03-04T09:00:00Z');
commit('hello.py', "def greet():\n    return 'Hello'\n", 'greet() says Hello', '2026-03-05T01:00:04Z');
console.log(`demo git repository: ${repo}`);
