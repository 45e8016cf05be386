import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openRegular } from '../../util/fs.ts';
import type { Composer } from './bubbles.ts';
import { workspaceStorageOf } from './paths.ts';
import { isObject, str } from './text.ts';

/** workspace.json is a few bytes; anything larger is not one. */
const MAX_WORKSPACE_JSON = 64 * 1024;

/**
 * The folder an editor chat ran in: `composerData.workspaceIdentifier` holds the workspace's `uri` (newer builds)
 * or its `id`, the name of a `workspaceStorage/<id>/` folder whose `workspace.json` says `{"folder": "file://…"}`.
 */
export async function workspaceFolder(db: string, composer: Composer): Promise<string | undefined> {
  const ident = isObject(composer.workspaceIdentifier) ? composer.workspaceIdentifier : undefined;
  const uri = isObject(ident?.uri) ? ident.uri : undefined;
  const direct = str(uri?.fsPath) ?? str(uri?.path) ?? fromUri(str(uri?.external));
  if (direct) return direct;
  const id = str(ident?.id);
  if (!id || id.includes('/') || id.includes('\\') || id.includes('..')) return undefined;
  try {
    const handle = await openRegular(path.join(workspaceStorageOf(db), id, 'workspace.json'));
    try {
      const { size } = await handle.stat();
      if (size > MAX_WORKSPACE_JSON) return undefined;
      const value = JSON.parse(await handle.readFile('utf8')) as unknown;
      return isObject(value) ? fromUri(str(value.folder)) : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

function fromUri(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  if (!uri.startsWith('file://')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    // A Windows path seen on Linux (file:///c%3A/Users/…): decode it by hand.
    return decodeURIComponent(uri.slice('file://'.length)).replace(/^\/([A-Za-z]:)/, '$1');
  }
}

/**
 * The folder a CLI chat ran in: its store sits under `chats/<md5 of the workspace's absolute path>/`. The
 * longest leading part of a path the chat names whose MD5 is that hash; undefined when none is.
 */
export function cwdFromHash(hash: string, seenPaths: Iterable<string>): string | undefined {
  if (!/^[0-9a-f]{32}$/i.test(hash)) return undefined;
  const want = hash.toLowerCase();
  const tried = new Set<string>();
  let best: string | undefined;
  for (const seen of seenPaths) {
    const native = seen.startsWith('file://') ? (fromUri(seen) ?? seen) : seen;
    const sep = /^[A-Za-z]:\\/.test(native) ? '\\' : '/';
    const parts = native.split(/[\\/]/);
    for (let n = parts.length; n > 1; n -= 1) {
      const prefix = parts.slice(0, n).join(sep);
      if (!prefix || tried.has(prefix) || (best && prefix.length <= best.length)) continue;
      tried.add(prefix);
      if (createHash('md5').update(prefix).digest('hex') === want) best = prefix;
    }
  }
  return best;
}
