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
