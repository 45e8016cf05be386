import { promises as fs } from 'node:fs';
import { openRegular, readFailure } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Workspace } from './schema.ts';

/** workspace.yaml is a handful of short lines; anything past this is not the CLI's file. */
const MAX_WORKSPACE_BYTES = 256 * 1024;
const KEYS = new Set<keyof Workspace>([
  'id',
  'cwd',
  'git_root',
  'repository',
  'branch',
  'summary',
  'name',
  'created_at',
  'updated_at',
]);

/**
 * Parses the flat `key: value` YAML the CLI writes (js-yaml `dump` of a flat object): plain, single- and
 * double-quoted scalars, and `|`/`>` block scalars (a multi-line summary). Nested values are ignored.
 */
export function parseWorkspaceYaml(text: string): Workspace {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/.exec(lines[i]!);
    if (!m) continue;
    const key = m[1]!;
    let value = (m[2] ?? '').trim();
    if (/^[|>][+-]?\d*$/.test(value)) {
      const block: string[] = [];
      while (i + 1 < lines.length && (/^\s+/.test(lines[i + 1]!) || lines[i + 1] === '')) block.push(lines[++i]!);
      const indent = Math.min(...block.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length));
      const body = block.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
      value = (value.startsWith('>') ? body.join(' ') : body.join('\n')).trim();
    } else if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        value = value.slice(1, value.endsWith('"') ? -1 : undefined);
      }
    } else if (value.startsWith("'")) {
      value = value.slice(1, value.endsWith("'") ? -1 : undefined).replace(/''/g, "'");
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    if (KEYS.has(key as keyof Workspace) && value && value !== 'null' && value !== '~') out[key] = value;
  }
  return out as Workspace;
}

/** The workspace.yaml of a session folder, when there is one (a bad one is warned about and ignored). */
export async function readWorkspace(file: string, warn: WarningSink): Promise<Workspace | undefined> {
  try {
    const stat = await fs.stat(file);
    if (stat.size > MAX_WORKSPACE_BYTES) {
      warn({ file, message: `workspace.yaml of ${stat.size} bytes is too large; ignored` });
      return undefined;
    }
    const handle = await openRegular(file);
    try {
      return parseWorkspaceYaml(await handle.readFile('utf8'));
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    warn({ file, message: `${readFailure(error)}; ignored` });
    return undefined;
  }
}
