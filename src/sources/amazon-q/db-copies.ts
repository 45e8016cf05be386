import { cutDeeperThan } from '../../model/message-schema.ts';
import type { Session } from '../../model/session.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../util/jsonl.ts';
import type { SourceContext } from '../source.ts';
import { latestDataTime, normalizeConversation } from './normalize.ts';
import { QReadError, readDatabase, readExport, type ConversationRow, type ReadDatabaseOptions } from './reader.ts';
import type { QConversationState } from './schema.ts';

/** One stored copy of a conversation in a database or a `/save` export. */
export interface Copy {
  row: ConversationRow;
  freshness: number;
  size: number;
}

/** Reads every conversation row of the databases and exports (stamping each first); a file that cannot be read
 * is one warning and marked unavailable, so what was collected from it earlier stays. */
export async function readRows(
  files: string[],
  exports: Set<string>,
  ctx: SourceContext,
  readOptions: ReadDatabaseOptions,
): Promise<ConversationRow[]> {
  const rows: ConversationRow[] = [];
  for (const file of files) await ctx.stamp?.(file);
  for (const file of files) {
    try {
      if (exports.has(file)) {
        rows.push(await readExport(file));
        continue;
      }
      const contents = await readDatabase(file, readOptions);
      if (contents.tables.length === 0) {
        ctx.warn({
          file,
          message: 'no conversations table (Q builds before May 2025 kept no chat history here); nothing to read',
        });
      }
      rows.push(...contents.rows);
    } catch (error) {
      const detail = error instanceof QReadError ? error.message : `could not read (${(error as Error).message})`;
      ctx.unavailable?.(file);
      ctx.warn({ file, message: `${detail}; skipped this run, conversations collected earlier stay in the archive` });
    }
  }
  return rows;
}

/** One conversation can be stored several times: a `/save` export of a row, a Kiro database next to the Q one
 * it was migrated from, a v1 row copied into `conversations_v2`. Copies grouped by conversation id. */
export function groupCopies(rows: ConversationRow[], ctx: SourceContext): Map<string, Copy[]> {
  const groups = new Map<string, Copy[]>();
  for (const row of rows) {
    const state = parseRow(row, ctx);
    if (!state) continue;
    const conversationId =
      row.conversationId ?? (typeof state.conversation_id === 'string' ? state.conversation_id : undefined);
    if (!conversationId) {
      ctx.warn({ file: row.file, message: `${describeRow(row)} has no conversation_id; skipped` });
      continue;
    }
    const freshness = Math.max(row.updatedAt ?? 0, latestDataTime(state) ?? 0) || row.fileMtimeMs;
    const size = (Array.isArray(state.history) ? state.history.length : 0) + (state.transcript?.length ?? 0);
    const copies = groups.get(conversationId) ?? [];
    copies.push({ row, freshness, size });
    groups.set(conversationId, copies);
  }
  return groups;
}

/** The freshest copy (the larger one when equally fresh). */
export function bestCopy(copies: Copy[]): Copy {
  return copies.reduce((a, b) =>
    b.freshness > a.freshness || (b.freshness === a.freshness && b.size > a.size) ? b : a,
  );
}

/** The session of a conversation from its best database copy; undefined when it holds nothing readable. */
export async function copySession(
  conversationId: string,
  copies: Copy[],
  ctx: SourceContext,
): Promise<Session | undefined> {
  const best = bestCopy(copies);
  const state = parseRow(best.row, ctx, true);
  if (!state) return undefined;
  const cwd = copies.find((c) => c.row.key)?.row.key;
  const archived = await ctx.loadArchived?.(conversationId);
  let session: Session | undefined;
  // A conversation the normalizer cannot handle costs that conversation only.
  try {
    session = normalizeConversation({
      state,
      row: best.row,
      conversationId,
      cwd,
      archived: archived?.source === 'amazon-q' ? archived : undefined,
    });
  } catch (error) {
    ctx.unavailable?.(best.row.file);
    ctx.warn({
      file: best.row.file,
      message: `${describeRow(best.row)} (conversation ${JSON.stringify(conversationId)}) not understood (${
        error instanceof Error ? `${error.name}: ${error.message}` : String(error)
      }); skipped`,
    });
    return undefined;
  }
  if (!session) return undefined;
  const others = [...new Set(copies.filter((c) => c !== best).map((c) => describeCopy(c.row)))];
  if (others.length > 0)
    session.warnings.push(`also stored in ${others.join(', ')} (an older or equal copy; not read)`);
  return session;
}

function parseRow(row: ConversationRow, ctx: SourceContext, quiet = false): QConversationState | undefined {
  try {
    const value = JSON.parse(row.value.toString('utf8')) as unknown;
    if (nestedDeeperThan(row.value, value, MAX_JSON_DEPTH)) {
      // One deep tool argument costs that argument, not the conversation.
      cutDeeperThan(value, MAX_JSON_DEPTH);
      if (!quiet)
        ctx.warn({
          file: row.file,
          message: `${describeRow(row)} is nested more than ${MAX_JSON_DEPTH} levels deep; the deeper part replaced with a marker`,
        });
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as QConversationState;
    if (!quiet) ctx.warn({ file: row.file, message: `${describeRow(row)} is not a ConversationState object; skipped` });
  } catch (error) {
    if (!quiet)
      ctx.warn({
        file: row.file,
        message: `${describeRow(row)} is not valid JSON (${(error as Error).message}); skipped`,
      });
  }
  return undefined;
}

export function describeCopy(row: ConversationRow): string {
  return row.kind === 'json' ? row.file : `${row.file} (${row.table})`;
}

function describeRow(row: ConversationRow): string {
  if (row.kind === 'json') return 'the file';
  return `${row.table} row ${row.rowIndex}${row.key ? ` (${row.key})` : ''}`;
}
