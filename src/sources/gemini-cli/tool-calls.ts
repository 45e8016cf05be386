import type { ToolStatus } from '../../model/message.ts';
import { isObject } from './schema.ts';

/** The scheduler's status (`packages/core/src/scheduler/types.ts`) in the model's words; undefined: not done. */
export function statusOf(status: unknown): ToolStatus | undefined {
  if (status === 'success') return 'completed';
  if (status === 'error') return 'error';
  if (status === 'cancelled') return 'rejected';
  return undefined;
}

/** Argument keys that hold a path, for telling the project's folder (`read_file.absolute_path`, `replace.file_path`,
 * `list_directory.path`/`dir_path`, `run_shell_command.dir_path`/`directory`…). */
const PATH_KEYS = ['file_path', 'absolute_path', 'path', 'dir_path', 'directory', 'cwd'];

/** Absolute paths among a call's arguments (also in `read_many_files.paths`). */
export function argPaths(args: unknown): string[] {
  if (!isObject(args)) return [];
  const out: string[] = [];
  const take = (v: unknown) => {
    if (typeof v === 'string' && isAbsolute(v)) out.push(v);
  };
  for (const key of PATH_KEYS) take(args[key]);
  if (Array.isArray(args.paths)) args.paths.forEach(take);
  return out;
}

/** POSIX or Windows absolute (the files may come from another OS). */
export function isAbsolute(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}
