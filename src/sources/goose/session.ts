import path from 'node:path';
import type { Session } from '../../model/session.ts';
import { NotRegularFileError, readFailure } from '../../util/fs.ts';
import { readJsonl } from '../../util/jsonl.ts';
import type { SourceContext } from '../source.ts';
import type { GooseDb } from './db-reader.ts';
import { GooseNormalizer } from './normalize.ts';
import { isObject, num, str, type GooseSessionRow } from './schema.ts';

/** One database session as an archived session (undefined when it holds no message). */
export function buildDbSession(
  db: GooseDb,
  row: GooseSessionRow,
  ctx: Pick<SourceContext, 'warn'>,
): Session | undefined {
  const n = new GooseNormalizer(row.id, ctx.warn, row);
  for (const record of db.messages(row.id)) n.add(record);
  return n.finish([db.file]);
}

/**
 * One older `sessions/<name>.jsonl` file, streamed line by line: a metadata line first (working_dir, description,
 * token counts), then one `Message` per line. The file's name is the session's id (as Goose kept it when it
 * imported the file into its database).
 */
export async function readJsonlSession(
  file: string,
  ctx: Pick<SourceContext, 'warn' | 'unavailable'>,
): Promise<Session | undefined> {
  const id = path.basename(file, '.jsonl');
  const n = new GooseNormalizer(id, ctx.warn, { id, tokens: {}, file });
  try {
    for await (const { value, line } of readJsonl(file, { onWarning: ctx.warn })) {
      if (!isObject(value)) {
        ctx.warn({ file, line, message: 'not a JSON object; skipped' });
        continue;
      }
      if (line === 1 && !('role' in value) && !('content' in value)) {
        n.info = metadataRow(id, value, file);
        continue;
      }
      n.add({
        role: value.role,
        created: value.created,
        content: value.content,
        metadata: value.metadata,
        ref: { file, line, ...(str(value.id) ? { id: str(value.id) } : {}) },
      });
    }
  } catch (error) {
    if (
      error instanceof NotRegularFileError ||
      ['EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')
    ) {
      ctx.unavailable?.(file);
      ctx.warn({ file, message: `${readFailure(error)}; skipped` });
      return undefined;
    }
    // A read error part-way: keep what was read, like a truncated last line.
    ctx.warn({ file, message: `could not read the whole file (${(error as Error).message}); kept what was read` });
  }
  return n.finish([file]);
}

/** The first line of a JSONL session (`SessionMetadata` in block/goose `crates/goose/src/session/storage.rs`). */
function metadataRow(id: string, meta: Record<string, unknown>, file: string): GooseSessionRow {
  return {
    id,
    name: str(meta.description) ?? str(meta.name),
    workingDir: str(meta.working_dir),
    tokens: {
      input: num(meta.input_tokens),
      output: num(meta.output_tokens),
      total: num(meta.total_tokens),
      accumulatedInput: num(meta.accumulated_input_tokens),
      accumulatedOutput: num(meta.accumulated_output_tokens),
      accumulatedTotal: num(meta.accumulated_total_tokens),
    },
    scheduleId: str(meta.schedule_id),
    file,
  };
}
