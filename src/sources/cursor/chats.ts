import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { WarningSink } from '../../util/warnings.ts';

/** One Cursor CLI (`cursor-agent`) chat: `<chats>/<md5 of the workspace path>/<agent id>/store.db`. */
export interface ChatStoreRef {
  /** The agent id: the chat folder's name (the `agentId` its metadata repeats). */
  id: string;
  /** The chat's parent folder: the MD5 of the workspace's absolute path (32 hex digits), when it looks like one. */
  workspaceHash: string;
  file: string;
  /** `meta.json` beside `store.db`, when there is one (newer CLI builds). */
  sidecar?: string;
  /** What the session is made from: `store.db`, its `-wal` while the CLI has one, `meta.json`. A change to any of
   * them (the CLI appends to the WAL, not to `store.db`, until a checkpoint) reads the chat again. */
  files: string[];
}

const STORE = 'store.db';

/**
 * Every CLI chat under `<cursorDir>/chats/` (or under a `chats` folder given itself). Listed synchronously, as the
 * transcripts are: a warm collect lists every chat folder and opens none of them.
 */
export function listChatStores(dir: string, warn: WarningSink): ChatStoreRef[] {
  const root = path.basename(dir) === 'chats' ? dir : path.join(dir, 'chats');
  const out: ChatStoreRef[] = [];
  for (const hash of dirNames(root, warn)) {
    for (const id of dirNames(path.join(root, hash), warn)) {
      const ref = chatStoreAt(path.join(root, hash, id, STORE));
      if (ref) out.push(ref);
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The chat whose `store.db` this is, when it is a file (also what `--cursor-dir <…/store.db>` names). */
export function chatStoreAt(file: string): ChatStoreRef | undefined {
  if (!isFile(file)) return undefined;
  const chatDir = path.dirname(file);
  const sidecar = path.join(chatDir, 'meta.json');
  const hasSidecar = isFile(sidecar);
  const wal = `${file}-wal`;
  return {
    id: path.basename(chatDir),
    workspaceHash: path.basename(path.dirname(chatDir)),
    file,
    ...(hasSidecar ? { sidecar } : {}),
    files: [file, ...(isFile(wal) ? [wal] : []), ...(hasSidecar ? [sidecar] : [])],
  };
}

export function isStoreFile(p: string): boolean {
  return path.basename(p) === STORE;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function dirNames(dir: string, warn: WarningSink): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      warn({ file: dir, message: `could not list (${(error as Error).message}); skipped` });
    return [];
  }
}
