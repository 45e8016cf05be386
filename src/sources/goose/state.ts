import { createHash } from 'node:crypto';
import type { GooseSessionRow } from './schema.ts';

/** A session's mark for `db-marks.ts`: its row's `updated_at`, name, tokens, model and cost, and its messages'
 * count and highest row id. */
export function sessionMark(row: GooseSessionRow, messages: string | undefined): string {
  return createHash('sha1')
    .update(
      JSON.stringify([
        row.updatedText ?? '',
        row.name ?? '',
        row.tokens,
        row.model ?? '',
        row.costUsd ?? null,
        messages ?? '',
      ]),
    )
    .digest('hex');
}
