import { readJsonl } from './jsonl.ts';
import { LineWriter } from './line-writer.ts';

const MAP = '$map';

/**
 * Saves a value whose big parts are Maps (a reader's state between runs) as JSON lines: first the value with
 * each Map replaced by a reference, then one line per Map entry. Neither writing nor reading builds one
 * string or one array of the whole. Map values must not hold Maps themselves.
 */
export function writeStateFile(file: string, value: unknown): void {
  const maps: Map<unknown, unknown>[] = [];
  const header = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof Map)) return v;
    maps.push(v);
    return { [MAP]: maps.length - 1 };
  });
  const out = new LineWriter(file);
  try {
    out.write(header);
    maps.forEach((map, n) => {
      for (const [key, v] of map) {
        out.write(
          JSON.stringify([n, key, v], (_k, x: unknown) => {
            if (x instanceof Map) throw new Error('a Map inside a Map entry cannot be saved');
            return x;
          }),
        );
      }
    });
    out.commit();
  } catch (error) {
    out.discard();
    throw error;
  }
}

/** Reads what `writeStateFile` wrote, or undefined when the file is missing or damaged. */
export async function readStateFile<T>(file: string): Promise<T | undefined> {
  let header: unknown;
  const maps: Map<unknown, unknown>[] = [];
  let damaged = false;
  try {
    for await (const { value } of readJsonl(file, { onWarning: () => (damaged = true) })) {
      if (header === undefined) {
        header = revive(value, maps);
        continue;
      }
      const [n, key, v] = value as [number, unknown, unknown];
      const map = maps[n];
      if (!map) return undefined;
      map.set(key, v);
    }
  } catch {
    return undefined;
  }
  return damaged ? undefined : (header as T | undefined);
}

function revive(value: unknown, maps: Map<unknown, unknown>[]): unknown {
  if (Array.isArray(value)) return value.map((v) => revive(v, maps));
  if (value && typeof value === 'object') {
    const ref = (value as Record<string, unknown>)[MAP];
    if (typeof ref === 'number' && Object.keys(value).length === 1) return (maps[ref] = new Map());
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v, maps)]));
  }
  return value;
}
