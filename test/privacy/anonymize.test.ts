import { describe, expect, it } from 'vitest';
import { createAnonymizer } from '../../src/privacy/anonymize.ts';

const mac = createAnonymizer({ home: '/Users/alice', userName: 'alice', hostName: 'alices-mbp.local' });

describe('createAnonymizer', () => {
  it.each([
    ['cd /Users/alice/code/app && ls', 'cd ~/code/app && ls'],
    ['/Users/alice', '~'],
    ['see /Users/alice.', 'see ~.'],
    ['"cwd": "/Users/alice/code"', '"cwd": "~/code"'],
    ['ls /home/alice/.ssh', 'ls ~/.ssh'],
    ['open file:///Users/alice/code/app/index.html', 'open file://~/code/app/index.html'],
    ['file:///C:/Users/alice/x.txt', 'file:///~/x.txt'],
    ['C:\\Users\\alice\\proj\\a.ts', '~\\proj\\a.ts'],
    ['c:\\users\\ALICE\\proj', '~\\proj'],
    ['C:/Users/alice/proj', '~/proj'],
    ['"C:\\\\Users\\\\alice\\\\proj"', '"~\\\\proj"'],
    ['/mnt/c/Users/alice/proj', '~/proj'],
    ['%2FUsers%2Falice%2Fcode', '~%2Fcode'],
    ['vscode://file/%2Fhome%2Falice%2Fapp', 'vscode://file/~%2Fapp'],
    ['C%3A%5CUsers%5Calice%5Cx', '~%5Cx'],
    ['~/.claude/projects/-Users-alice-code-app/1.jsonl', '~/.claude/projects/~-code-app/1.jsonl'],
    ['projects/C--Users-alice-proj', 'projects/~-proj'],
  ])('hides the home directory in %s', (input, expected) => {
    expect(mac.anonymize(input)).toBe(expected);
  });

  it.each([
    ['/Users/alice2/x', '/Users/alice2/x'],
    ['/Users/alicex', '/Users/alicex'],
    // Not the home, though the name in it still goes.
    ['/home/alice-old/x', '/home/<user>-old/x'],
    ['-Users-alicebob-x', '-Users-alicebob-x'],
    ['/Users/bob/x', '/Users/bob/x'],
  ])('does not take %s for the home directory', (input, expected) => {
    expect(mac.anonymize(input)).toBe(expected);
  });

  it('replaces the user name as a whole word, any case, never inside other words', () => {
    expect(mac.anonymize('alice wrote this; Alice agreed; ALICE left.')).toBe(
      '<user> wrote this; <user> agreed; <user> left.',
    );
    expect(mac.anonymize('malice, alices, alice_dev, alice2, Alicebob')).toBe(
      'malice, alices, alice_dev, alice2, Alicebob',
    );
    expect(mac.anonymize("alice's notes at @alice (alice-notes.md)")).toBe(
      "<user>'s notes at @<user> (<user>-notes.md)",
    );
  });

  it('replaces the host name, long and short', () => {
    expect(mac.anonymize('alice@alices-mbp ~ % ssh ALICES-MBP.local')).toBe('<user>@<host> ~ % ssh <host>');
    expect(mac.anonymize('alices-mbpro and my-alices-mbp stay')).toBe('alices-mbpro and my-alices-mbp stay');
  });

  it('replaces e-mail addresses, and leaves look-alikes', () => {
    expect(mac.anonymize('Author: Alice Smith <alice.smith+git@example.co.uk>')).toBe('Author: <user> Smith <<email>>');
    expect(mac.anonymize('12345+alice@users.noreply.github.com, bob@corp.example')).toBe('<email>, <email>');
    const kept = 'git@github.com:org/repo.git icon@2x.png lodash@4.17.21 @types/node@20.19.0 @decorator user@localhost';
    expect(mac.anonymize(kept)).toBe(kept);
  });

  it('leaves text without any of it byte for byte', () => {
    const text = 'Plain text: 東京 ~ 100% /usr/local/bin, C:\\Windows\\System32, -home-, /Users/, @, <user>';
    expect(mac.anonymize(text)).toBe(text);
  });

  it('is idempotent', () => {
    const inputs = [
      'cd /Users/alice/code && git log --author=alice@example.com on alices-mbp',
      'C:\\Users\\alice\\proj -Users-alice-x alice <user> <host> <email>',
    ];
    for (const input of inputs) {
      const once = mac.anonymize(input);
      expect(mac.anonymize(once)).toBe(once);
    }
  });

  it('hides other homes, a Windows home, and homes not named after the user', () => {
    const win = createAnonymizer({
      home: 'C:\\Users\\Bob',
      userName: 'bob.smith',
      hostName: 'DESKTOP-7Q2K',
      extraHomes: ['/srv/data/bob-home', 'D:\\Profiles\\bsmith'],
    });
    expect(win.anonymize('C:\\Users\\Bob\\repo and c:/users/bob/repo')).toBe('~\\repo and ~/repo');
    expect(win.anonymize('/srv/data/bob-home/x and D:\\Profiles\\bsmith\\y')).toBe('~/x and ~\\y');
    expect(win.anonymize('-srv-data-bob-home-x and D--Profiles-bsmith-y')).toBe('~-x and ~-y');
    expect(win.anonymize('/home/bob.smith/x, bob.smith said, bsmith too, on desktop-7q2k')).toBe(
      '~/x, <user> said, <user> too, on <host>',
    );
  });

  it('leaves redaction markers alone whatever the user and host are called', () => {
    const odd = createAnonymizer({ home: '/home/token', userName: 'token', hostName: 'private' });
    expect(odd.anonymize('token on private: [REDACTED:github-token] [REDACTED:private-key]')).toBe(
      '<user> on <host>: [REDACTED:github-token] [REDACTED:private-key]',
    );
  });

  it('replaces short or generic account names only in home paths', () => {
    const generic = createAnonymizer({ home: '/home/ubuntu', userName: 'ubuntu', hostName: 'localhost' });
    expect(generic.anonymize('ubuntu@localhost:/home/ubuntu/app$ uname -a # Ubuntu 22.04')).toBe(
      'ubuntu@localhost:~/app$ uname -a # Ubuntu 22.04',
    );
    const short = createAnonymizer({ home: '/Users/al', userName: 'al', hostName: 'pc' });
    expect(short.anonymize('al: total /Users/al/x on pc')).toBe('al: total ~/x on pc');
  });
});
