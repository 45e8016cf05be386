import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { rememberSettings, resolveSettings, UsageError } from '../../src/cli/options.ts';
import { runCli } from '../helpers/cli.ts';
import { FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

const io = (env: NodeJS.ProcessEnv = {}) => ({ cwd: REPO, env });

describe('resolveSettings', () => {
  it('takes a flag, else the config file, else what the data directory remembers, else the default', async () => {
    const data = await tempDir('settings');
    const base = resolveSettings({ data }, io());
    expect(base.origin).toEqual({ timeZone: 'default', weekStart: 'default', siteUrl: 'default' });
    expect(base.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);

    await rememberSettings(
      { ...resolveSettings({ data, tz: 'Asia/Tokyo', weekStart: 'sunday', siteUrl: 'https://me.example/log' }, io()) },
      { calendar: true },
    );
    const remembered = resolveSettings({ data }, io());
    expect(remembered).toMatchObject({
      timeZone: 'Asia/Tokyo',
      weekStart: 'sunday',
      siteUrl: 'https://me.example/log/',
      origin: { timeZone: 'remembered', weekStart: 'remembered', siteUrl: 'remembered' },
    });
    // An explicit flag wins over what is remembered.
    expect(resolveSettings({ data, tz: 'UTC' }, io())).toMatchObject({ timeZone: 'UTC', weekStart: 'sunday' });

    await fs.writeFile(path.join(data, 'agent-logbook.config.json'), JSON.stringify({ tz: 'Europe/Berlin' }));
    expect(resolveSettings({ data }, io())).toMatchObject({
      timeZone: 'Europe/Berlin',
      weekStart: 'sunday',
      origin: { timeZone: 'config', weekStart: 'remembered' },
    });
    expect(resolveSettings({ data, tz: 'UTC' }, io()).timeZone).toBe('UTC');
  });

  it('remembers source folders given by flag as one set, and never mixes them with new ones', async () => {
    const data = await tempDir('settings-sources');
    await rememberSettings(resolveSettings({ data, home: 'fixtures/home', codexDir: ['fixtures/home/.codex'] }, io()));
    const later = resolveSettings({ data }, { cwd: '/', env: {} });
    expect(later.home).toBe(FIXTURE_HOME);
    expect(later.explicitHome).toBe(true);
    expect(later.sourceOptions.codexDir).toEqual([path.join(FIXTURE_HOME, '.codex')]);
    const other = resolveSettings({ data, claudeDir: ['/elsewhere/.claude'] }, io());
    expect(other.explicitHome).toBe(false);
    expect(other.sourceOptions).toMatchObject({ claudeDir: ['/elsewhere/.claude'], codexDir: undefined });
  });

  it('reads --config FILE, paths relative to the file, and refuses a bad one naming it', async () => {
    const dir = await tempDir('config');
    const file = path.join(dir, 'my.json');
    await fs.writeFile(file, JSON.stringify({ data: 'archive', home: 'home', tz: 'Asia/Tokyo', weekStart: 'monday' }));
    expect(resolveSettings({ config: file }, io())).toMatchObject({
      dataDir: path.join(dir, 'archive'),
      home: path.join(dir, 'home'),
      timeZone: 'Asia/Tokyo',
      configFile: file,
    });
    const bad = async (content: string, says: string) => {
      await fs.writeFile(file, content);
      expect(() => resolveSettings({ config: file }, io())).toThrow(UsageError);
      expect(() => resolveSettings({ config: file }, io())).toThrow(`${file}: ${says}`);
    };
    await bad('{"tz": "Mars/Olympus"}', 'unknown time zone "Mars/Olympus"');
    await bad('{"timezone": "UTC"}', 'unknown setting "timezone"');
    await bad('{"weekStart": "friday"}', '"weekStart" must be "monday" or "sunday"');
    await bad('{"tz": ', 'not valid JSON');
    await bad('{"siteUrl": "ftp://x"}', '"ftp://x" is not an http(s) URL');
    expect(() => resolveSettings({ config: path.join(dir, 'missing.json') }, io())).toThrow('no such config file');
  });
});

describe('settings through the CLI', () => {
  let data: string;
  beforeAll(async () => {
    data = path.join(await tempDir('remember'), 'data');
    const run = await runCli(['collect', '--home', FIXTURE_HOME, '--data', data]);
    expect(run.code).toBe(0);
  });

  it('collect remembers the home it was given; report uses it and a remembered zone', async () => {
    expect(JSON.parse(await fs.readFile(path.join(data, 'settings.json'), 'utf8'))).toEqual({ home: FIXTURE_HOME });
    // A build with --tz Asia/Tokyo would have recorded it; here a config file names it.
    await fs.writeFile(path.join(data, 'agent-logbook.config.json'), '{ "tz": "Asia/Tokyo" }\n');
    const tokyo = await runCli(['report', '--data', data, '--day', '2026-03-03', '--format', 'json']);
    expect(tokyo.code).toBe(0);
    // Collected again from the remembered home (the fixtures), not from the real one.
    expect(tokyo.stderr).toContain('fixtures/home/.claude');
    expect(JSON.parse(tokyo.stdout).totals.prompts).toBe(9);
    const utc = await runCli([
      'report',
      '--data',
      data,
      '--no-collect',
      '--day',
      '2026-03-03',
      '--tz',
      'UTC',
      '--format',
      'json',
    ]);
    expect(JSON.parse(utc.stdout).timeZone).toBe('UTC');
    expect(JSON.parse(utc.stdout).totals.prompts).not.toBe(9);
    await fs.rm(path.join(data, 'agent-logbook.config.json'));
  });

  it('a bad config file is a usage error naming the file', async () => {
    const file = path.join(data, 'agent-logbook.config.json');
    await fs.writeFile(file, '{ "tz": 9 }');
    const run = await runCli(['report', '--data', data, '--no-collect', '--day', '2026-03-03']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: "tz" must be a string`);
    await fs.rm(file);
  });
});
