/**
 * The scanning pieces every text tool-call grammar shares: literal matching across delta boundaries, a
 * region's text kept in pieces, string-aware JSON bracket scanning, and a call object's reading.
 *
 * @module
 */
import { isPlainObject } from "../stored-history.ts";
import type { TextToolCall, TextToolCallFormat } from "./text-tool-call.ts";

export interface Output {
  text: string[];
  toolCalls: TextToolCall[];
}

export interface Engine {
  push(delta: string, out: Output): void;
  finish(out: Output): void;
}

type Match = "yes" | "partial" | "no";

/** Whether `literal` starts at `at` of `s`; `partial` when `s` ends inside a possible match. */
export function matchAt(s: string, at: number, literal: string): Match {
  if (s.startsWith(literal, at)) return "yes";
  if (s.length - at < literal.length && literal.startsWith(s.slice(at))) return "partial";
  return "no";
}

export function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9 || code === 12 || code === 11;
}

/** Below this many consumed characters a {@link RegionText} does not bother to move them out of its tail. */
const COMPACT_MIN = 2048;

/**
 * The text of a region (a tool call being read), from its opening tag on, in absolute positions. Reads
 * (`code`, `match`, `skipSpace`, `indexOf`) happen near the scan position; text before it is moved out of
 * the tail into pieces (see {@link RegionText.compact}) so that appending a delta never copies the whole
 * region again: `+=` on one ever-growing string would be flattened (copied) on every read, O(n²) over a
 * long call streamed in small deltas.
 */
export class RegionText {
  #pieces: string[] = [];
  #base = 0;
  #tail: string;

  constructor(initial: string) {
    this.#tail = initial;
  }

  append(delta: string): void {
    this.#tail += delta;
  }

  get length(): number {
    return this.#base + this.#tail.length;
  }

  /** Character code at absolute `i` (`i` not before the last compaction). */
  code(i: number): number {
    return this.#tail.charCodeAt(i - this.#base);
  }

  match(at: number, literal: string): Match {
    return matchAt(this.#tail, at - this.#base, literal);
  }

  skipSpace(at: number): number {
    const tail = this.#tail;
    let i = at - this.#base;
    while (i < tail.length && isSpace(tail.charCodeAt(i))) i++;
    return i + this.#base;
  }

  indexOf(literal: string, from: number): number {
    const at = this.#tail.indexOf(literal, from - this.#base);
    return at === -1 ? -1 : at + this.#base;
  }

  /** Any range, compacted or not. */
  slice(from: number, to: number = this.length): string {
    if (from >= this.#base) return this.#tail.slice(from - this.#base, to - this.#base);
    const head = this.#pieces.length === 1 ? this.#pieces[0]! : this.#pieces.join("");
    this.#pieces = [head];
    if (to <= this.#base) return head.slice(from, to);
    return head.slice(from) + this.#tail.slice(0, to - this.#base);
  }

  /** Nothing before absolute `i` will be read again except through `slice`. */
  compact(i: number): void {
    const k = i - this.#base;
    if (k < COMPACT_MIN) return;
    this.#pieces.push(this.#tail.slice(0, k));
    this.#tail = this.#tail.slice(k);
    this.#base = i;
  }
}

/**
 * Resumable scan of one JSON object or array from its opening bracket: string-aware bracket counting, so
 * brackets and tags inside strings do not count. It finds where the value ends; `JSON.parse` judges it.
 */
export class JsonScan {
  #i: number;
  #depth = 0;
  #inString = false;
  #escape = false;

  constructor(start: number) {
    this.#i = start;
  }

  /** Where the scan will read next. */
  get position(): number {
    return this.#i;
  }

  /** The position just past the closing bracket, or -1 while the text ends first. */
  feed(text: RegionText): number {
    const end = text.length;
    for (; this.#i < end; this.#i++) {
      const c = text.code(this.#i);
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === 92 /* \ */) this.#escape = true;
        else if (c === 34 /* " */) this.#inString = false;
      } else if (c === 34) {
        this.#inString = true;
      } else if (c === 123 /* { */ || c === 91 /* [ */) {
        this.#depth++;
      } else if (c === 125 /* } */ || c === 93 /* ] */) {
        this.#depth--;
        if (this.#depth <= 0) return ++this.#i;
      }
    }
    return -1;
  }
}

export const NOT_JSON: unique symbol = Symbol("not JSON");

export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

export { isPlainObject };

/** An own data property, safe for any key (`__proto__` included). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function notAnObject(format: TextToolCallFormat, name: string): string {
  return `${format}: arguments of tool call "${name}" are not a JSON object; using {}`;
}

/** `{"name": ..., "arguments" | "parameters": ...}` → a call, or the reason it is not one. */
export function callFromObject(
  value: unknown,
  format: TextToolCallFormat,
  warnings: string[],
): TextToolCall | string {
  if (!isPlainObject(value)) return "the tool call is not a JSON object";
  const name = value.name;
  if (typeof name !== "string" || name.trim() === "") return 'the tool call has no "name"';
  const raw = Object.hasOwn(value, "arguments") ? value.arguments : value.parameters;
  if (raw === undefined) return { name, arguments: {}, argumentsText: "{}" };
  if (isPlainObject(raw)) return { name, arguments: raw, argumentsText: JSON.stringify(raw) };
  if (typeof raw === "string") {
    // Arguments given as a JSON string: the model's own text is the arguments text.
    const parsed = tryParseJson(raw);
    if (isPlainObject(parsed)) return { name, arguments: parsed, argumentsText: raw };
    warnings.push(notAnObject(format, name));
    return { name, arguments: {}, argumentsText: raw };
  }
  warnings.push(notAnObject(format, name));
  return { name, arguments: {}, argumentsText: JSON.stringify(raw) };
}
