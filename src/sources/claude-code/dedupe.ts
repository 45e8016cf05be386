/**
 * What is known of the records with one uuid: a 30-bit fingerprint of each one's type, time and length
 * (to drop a repeated record), times two, plus one once a record with it was this thread's own (for the
 * summaries that name their last record). An array in the rare case of several records with one uuid.
 */
export type RecordPrints = number | number[];

export function fingerprint(type: unknown, timestamp: unknown, length: number): number {
  const text = `${String(type)}\u0000${String(timestamp)}\u0000${length}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0) & 0x3fffffff;
}

/** The records a thread has seen, by uuid: to drop repeated records and to tell which were its own. */
export class SeenRecords {
  /** Saved as is in the thread's state (the map itself, not a copy). */
  constructor(readonly prints = new Map<string, RecordPrints>()) {}

  /** Notes a record; false when the same record (by uuid and fingerprint) was seen before. */
  firstOfItsKind(uuid: string, print: number): boolean {
    const known = this.prints.get(uuid);
    if (known === undefined) {
      this.prints.set(uuid, print * 2);
      return true;
    }
    const prints = Array.isArray(known) ? known : [known];
    if (prints.some((p) => p >> 1 === print)) return false;
    this.prints.set(uuid, [...prints, print * 2]);
    return true;
  }

  markOwn(uuid: string): void {
    const known = this.prints.get(uuid);
    if (typeof known === 'number') this.prints.set(uuid, known | 1);
    else if (known) known[0]! |= 1;
    else this.prints.set(uuid, 1); // (a record routed here without passing `add`)
  }

  isOwn(uuid: string): boolean {
    const known = this.prints.get(uuid);
    return known !== undefined && (Array.isArray(known) ? known.some((p) => p & 1) : (known & 1) === 1);
  }
}
