/**
 * A 64-bit hash of a text in 16 hex digits (two 32-bit FNV-1a lanes with different primes, each mixed at the
 * end): for the key of derived data that must change when the text does, on a path where loading node:crypto
 * (~10 ms) would cost more than the hashing itself. Not for anything someone could want to collide.
 */
export function textHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return hex32(mix(a)) + hex32(mix(b ^ text.length));
}

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}
