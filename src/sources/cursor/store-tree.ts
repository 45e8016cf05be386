/**
 * A tree node of the CLI's `store.db`: a protobuf message whose repeated field 1 (bytes, tag `0x0a`, length
 * `0x20`) holds the raw 32-byte SHA-256 ids of its children in order. Other fields (the root also keeps a
 * context-size snapshot, and another 32-byte hash in field 8) are skipped by their wire type, key by key: never
 * by looking for the bytes `0a 20`, which also occur inside other fields. Returns the children as lower-case hex,
 * or undefined when the bytes are not a well-formed protobuf message or field 1 is not 32-byte ids (refused
 * rather than skipped: a shorter list would look complete).
 */
export function childIds(data: Buffer): string[] | undefined {
  const out: string[] = [];
  let at = 0;
  const varint = (): number | undefined => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i += 1) {
      if (at >= data.length) return undefined;
      const byte = data[at++]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    return undefined;
  };
  while (at < data.length) {
    const key = varint();
    if (key === undefined) return undefined;
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0 || (field === 1 && wire !== 2)) return undefined;
    if (wire === 0) {
      if (varint() === undefined) return undefined;
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
      if (at > data.length) return undefined;
    } else if (wire === 2) {
      const length = varint();
      if (length === undefined || at + length > data.length) return undefined;
      if (field === 1 && length !== 32) return undefined;
      if (field === 1) out.push(data.subarray(at, at + length).toString('hex'));
      at += length;
    } else return undefined;
  }
  return out;
}
