/**
 * Pieces of a field the stream sends in deltas, held flat until the field is read. Every stream assembler
 * keeps its block text, thinking text and tool-call argument JSON here.
 *
 * @module
 */

/**
 * How many pieces are joined into one flat string at a time. `text += delta` builds a V8 rope instead: a
 * ~20-byte node plus a string object per delta (~7 bytes per character of a typical text stream), and the
 * rope is flattened later at the cost of another copy. 256 keeps the pending array small and the chunk
 * list short (39 chunks for a 10,000-delta block).
 */
const PIECES_PER_CHUNK = 256;

/**
 * The text of one streamed field (a block's text or thinking, a tool call's arguments), kept as flat pieces:
 * `push` per delta, `text()` when the field is needed. Exact for any number and size of pieces; `text()` may
 * be called at any time, and pushes after it append.
 *
 * @example
 * ```ts
 * const thinking = new PieceBuffer();
 * for (const delta of deltas) thinking.push(delta);
 * block.thinking = thinking.text();
 * ```
 */
export class PieceBuffer {
  /** Joined runs of {@link PIECES_PER_CHUNK} pieces, in order. */
  #chunks: string[] = [];
  /** Pieces since the last chunk. */
  readonly #parts: string[] = [];

  /** Appends one piece. */
  push(piece: string): void {
    if (this.#parts.push(piece) === PIECES_PER_CHUNK) {
      this.#chunks.push(this.#parts.join(""));
      this.#parts.length = 0;
    }
  }

  /** Everything pushed so far, in order, as one string; pushes after it append. */
  text(): string {
    this.#chunks.push(this.#parts.join(""));
    this.#parts.length = 0;
    return this.#chunks.join("");
  }

  /** Drops everything pushed so far: a holder that has read the text for good lets its memory go. */
  clear(): void {
    this.#chunks = [];
    this.#parts.length = 0;
  }
}
