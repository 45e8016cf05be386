import { isObject, num, str } from './builder.ts';

/** The model that answered at a time (epoch ms), from task_metadata.json's `model_usage`. */
export type ModelAt = (ts: number | undefined) => string | undefined;

export interface TaskMetadata {
  modelAt: ModelAt;
  /** `environment_history`'s last `cline_version` (Cline 3.2x and later). */
  version?: string;
  /** `environment_history`'s last `host_name` ("Visual Studio Code", "Cursor"…). */
  host?: string;
}

/** `task_metadata.json` (`TaskMetadata` in cline/cline `src/core/context/context-tracking/ContextTrackerTypes.ts`):
 * `files_in_context`, `model_usage` [{ts, model_id, model_provider_id, mode}], `environment_history`
 * [{ts, os_name, os_version, os_arch, host_name, host_version, cline_version}]. */
export function taskMetadataOf(value: unknown): TaskMetadata {
  const doc = isObject(value) ? value : {};
  const usage = (Array.isArray(doc.model_usage) ? doc.model_usage : [])
    .filter(isObject)
    .map((u) => ({ ts: num(u.ts) ?? 0, model: str(u.model_id) }))
    .filter((u): u is { ts: number; model: string } => u.model !== undefined)
    .sort((a, b) => a.ts - b.ts);
  const env = (Array.isArray(doc.environment_history) ? doc.environment_history : []).filter(isObject).at(-1);
  return {
    modelAt: (ts) => {
      if (!usage.length) return undefined;
      if (ts === undefined) return usage[0]!.model;
      let model = usage[0]!.model;
      for (const u of usage) if (u.ts <= ts) model = u.model;
      return model;
    },
    ...(str(env?.cline_version) ? { version: str(env?.cline_version) } : {}),
    ...(str(env?.host_name) ? { host: str(env?.host_name) } : {}),
  };
}
