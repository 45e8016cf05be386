import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileWriter, ParquetWriter, schemaFromColumnData, type BasicType } from 'hyparquet-writer';
import { LineWriter } from '../util/line-writer.ts';

/** A column of an exported table: its name and its parquet type (JSONL writes the same values as JSON). */
export interface Column {
  name: string;
  type: 'STRING' | 'INT32' | 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP';
}

export type Row = Record<string, string | number | boolean | null | undefined>;

/** Rows go out as they come; a writer holds at most one batch. */
export interface TableWriter {
  write(row: Row): Promise<void>;
  close(): Promise<void>;
}

export type ExportFormat = 'jsonl' | 'parquet';

/** Rows or bytes of text before a parquet batch (a row group) is written. */
const BATCH_ROWS = 5000;
const BATCH_CHARS = 16 * 1024 * 1024;

export function openTable(dir: string, name: string, columns: Column[], format: ExportFormat): TableWriter {
  mkdirSync(dir, { recursive: true });
  return format === 'jsonl'
    ? jsonlTable(path.join(dir, `${name}.jsonl`), columns)
    : parquetTable(path.join(dir, `${name}.parquet`), columns);
}

function jsonlTable(file: string, columns: Column[]): TableWriter {
  const out = new LineWriter(file);
  return {
    async write(row) {
      const record: Record<string, unknown> = {};
      for (const c of columns) record[c.name] = row[c.name] ?? null;
      out.write(JSON.stringify(record));
    },
    async close() {
      out.commit();
    },
  };
}

function toParquet(type: Column['type'], value: Row[string]): unknown {
  if (value === undefined || value === null || value === '') return type === 'STRING' && value === '' ? '' : null;
  if (type === 'INT64') return BigInt(Math.round(Number(value)));
  if (type === 'TIMESTAMP') {
    const ms = Date.parse(String(value));
    return Number.isFinite(ms) ? new Date(ms) : null;
  }
  return value;
}

function parquetTable(file: string, columns: Column[]): TableWriter {
  const schema = schemaFromColumnData({
    columnData: columns.map((c) => ({ name: c.name, data: [], type: c.type as BasicType, nullable: true })),
  });
  const writer = new ParquetWriter({ writer: fileWriter(file), schema, createdBy: 'agent-logbook export' });
  let batch: unknown[][] = columns.map(() => []);
  let rows = 0;
  let chars = 0;
  const flush = async () => {
    if (rows === 0) return;
    const columnData = columns.map((c, i) => ({ name: c.name, data: batch[i]!, type: c.type as BasicType }));
    await writer.write({ columnData, rowGroupSize: rows });
    batch = columns.map(() => []);
    rows = 0;
    chars = 0;
  };
  return {
    async write(row) {
      columns.forEach((c, i) => {
        const value = row[c.name];
        if (typeof value === 'string') chars += value.length;
        batch[i]!.push(toParquet(c.type, value));
      });
      rows += 1;
      if (rows >= BATCH_ROWS || chars >= BATCH_CHARS) await flush();
    },
    async close() {
      await flush();
      await writer.finish();
    },
  };
}
