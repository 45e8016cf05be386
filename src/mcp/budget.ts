/**
 * An answer that never exceeds `max` characters: blocks are added whole while they fit, leaving room
 * for a closing note (what was left out, and how to get it). Only a block that does not fit even alone
 * is cut, so that paging always moves on.
 */
export class Budget {
  private readonly parts: string[] = [];
  private used = 0;
  /** Blocks taken (whole or cut). */
  taken = 0;

  constructor(
    readonly max: number,
    /** Kept free for the closing note. */
    private readonly reserve = Math.min(600, Math.floor(max / 4)),
    /** Between blocks: a blank line between messages, a newline between the lines of a list. */
    private readonly separator = '\n\n',
  ) {}

  get length(): number {
    return this.used;
  }

  private cost(text: string): number {
    return (this.parts.length > 0 ? this.separator.length : 0) + text.length;
  }

  /** Adds a block if it fits whole; false (nothing added) if not. */
  add(text: string): boolean {
    if (this.used + this.cost(text) > this.max - this.reserve) return false;
    this.used += this.cost(text);
    this.parts.push(text);
    this.taken += 1;
    return true;
  }

  /** Adds a block, cut to the room left when it does not fit whole; false only when not even a cut one fits. */
  addCut(text: string, note: (left: number) => string): boolean {
    if (this.add(text)) return true;
    const room = this.max - this.reserve - this.used - (this.parts.length > 0 ? this.separator.length : 0);
    const sample = note(text.length);
    const keep = Math.max(0, room - sample.length - 1);
    const cut = `${text.slice(0, keep)}\n${note(text.length - keep)}`;
    if (cut.length > room) return false;
    this.used += this.cost(cut);
    this.parts.push(cut);
    this.taken += 1;
    return true;
  }

  /** Room left for blocks (not counting the reserve). */
  get room(): number {
    return this.max - this.reserve - this.used;
  }

  /** The answer with its closing note; cut hard at `max` should the note not fit (it always should). */
  finish(footer = ''): string {
    const body = this.parts.join(this.separator);
    const text = footer ? (body ? `${body}\n\n${footer}` : footer) : body;
    return text.length > this.max ? text.slice(0, this.max) : text;
  }
}
