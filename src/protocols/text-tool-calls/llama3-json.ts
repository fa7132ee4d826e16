/**
 * `llama3-json` (Llama 3.1+ JSON tool calling): the message itself is `{"name": ..., "parameters": {...}}`,
 * optionally after `<|python_tag|>`, possibly several objects separated by `;` and/or whitespace.
 *
 * @module
 */
import {
  callFromObject,
  type Engine,
  isPlainObject,
  isSpace,
  JsonScan,
  matchAt,
  NOT_JSON,
  type Output,
  RegionText,
  tryParseJson,
} from "./scan.ts";
import type { TextToolCall } from "./text-tool-call.ts";

const PYTHON_TAG = "<|python_tag|>";

/** An invalid or unterminated object with a `"name":` key was probably meant as a call. */
const NAME_KEY = /"name"\s*:/;

/**
 * `start`: only whitespace (and maybe the start of `<|python_tag|>`) so far; `calls`: the message is being
 * read as call objects; `text`: decided to be text, everything passes straight through.
 */
export class Llama3Engine implements Engine {
  readonly #warnings: string[];
  #mode: "start" | "calls" | "text" = "start";
  /** Start mode: whitespace and maybe a partial `<|python_tag|>`. */
  #buf = "";
  /** Calls mode: the message from its start (before any call) or from the end of the last call. */
  #text = new RegionText("");
  #tagged = false;
  /** Calls mode: `object-open` after the tag, `object` inside one, `separator` after one. */
  #phase: "object-open" | "object" | "separator" = "object";
  #i = 0;
  /** Where the buffered text that is not a call yet starts: 0, or the end of the last call. */
  #from = 0;
  #objectStart = 0;
  #scan: JsonScan | undefined;
  #calls = 0;

  constructor(warnings: string[]) {
    this.#warnings = warnings;
  }

  push(delta: string, out: Output): void {
    if (this.#mode === "text") {
      out.text.push(delta);
      return;
    }
    if (this.#mode === "start") this.#buf += delta;
    else this.#text.append(delta);
    this.#drive(false, out);
  }

  finish(out: Output): void {
    if (this.#mode !== "text") this.#drive(true, out);
  }

  /** Releases the undecided text as text; everything after streams through. */
  #toText(out: Output, warning?: string): void {
    if (warning) this.#warnings.push(`llama3-json: ${warning}; released as text`);
    const rest = this.#mode === "start" ? this.#buf : this.#text.slice(this.#from);
    if (rest !== "") out.text.push(rest);
    this.#buf = "";
    this.#text = new RegionText("");
    this.#mode = "text";
  }

  /**
   * A failed object: before any call the whole message is text, after one the rest is. A bare `{...}`
   * before any call is ordinary content (a JSON answer, prose in braces): a warning only when it looks like
   * an attempted call (`attempted`).
   */
  #fail(out: Output, reason: string, attempted: boolean): void {
    const warn = this.#calls > 0 || this.#tagged || attempted;
    this.#toText(out, warn ? reason : undefined);
  }

  #drive(final: boolean, out: Output): void {
    if (this.#mode === "start") {
      const buf = this.#buf;
      let i = 0;
      while (i < buf.length && isSpace(buf.charCodeAt(i))) i++;
      if (i === buf.length) {
        if (final) this.#toText(out);
        return;
      }
      if (buf.charCodeAt(i) === 123 /* { */) {
        this.#phase = "object";
        this.#objectStart = i;
        this.#scan = new JsonScan(i);
      } else {
        const tag = matchAt(buf, i, PYTHON_TAG);
        if (tag === "partial" && !final) return;
        if (tag !== "yes") {
          this.#toText(out);
          return;
        }
        this.#tagged = true;
        this.#phase = "object-open";
        this.#i = i + PYTHON_TAG.length;
      }
      this.#mode = "calls";
      this.#text = new RegionText(buf);
      this.#buf = "";
    }
    const text = this.#text;
    for (;;) {
      switch (this.#phase) {
        case "object-open": {
          this.#i = text.skipSpace(this.#i);
          if (this.#i === text.length) {
            if (final) this.#fail(out, `no tool call after ${PYTHON_TAG}`, true);
            return;
          }
          if (text.code(this.#i) !== 123 /* { */) {
            this.#fail(out, `${PYTHON_TAG} is not followed by a JSON object`, true);
            return;
          }
          this.#objectStart = this.#i;
          this.#scan = new JsonScan(this.#i);
          this.#phase = "object";
          break;
        }
        case "object": {
          const end = this.#scan!.feed(text);
          if (end === -1) {
            if (final) {
              const attempted = NAME_KEY.test(text.slice(this.#objectStart));
              this.#fail(out, "unterminated tool call at end of stream", attempted);
            } else {
              text.compact(this.#scan!.position);
            }
            return;
          }
          const raw = text.slice(this.#objectStart, end);
          const value = tryParseJson(raw);
          if (value === NOT_JSON) {
            this.#fail(out, "tool call is not valid JSON", NAME_KEY.test(raw));
            return;
          }
          if (
            !isPlainObject(value) ||
            typeof value.name !== "string" ||
            value.name.trim() === "" ||
            !(Object.hasOwn(value, "parameters") || Object.hasOwn(value, "arguments"))
          ) {
            // Valid JSON without the call shape is an answer, not a broken call.
            this.#fail(out, 'JSON object is not a tool call ("name" and "parameters")', false);
            return;
          }
          out.toolCalls.push(callFromObject(value, "llama3-json", this.#warnings) as TextToolCall);
          this.#calls++;
          this.#from = end;
          this.#i = end;
          this.#phase = "separator";
          break;
        }
        case "separator": {
          const end = text.length;
          while (this.#i < end) {
            const code = text.code(this.#i);
            if (!isSpace(code) && code !== 59 /* ; */) break;
            this.#i++;
          }
          if (this.#i === end) {
            // Separators after the last call are syntax, not text.
            if (final) this.#text = new RegionText("");
            return;
          }
          if (text.code(this.#i) !== 123 /* { */) {
            this.#toText(out);
            return;
          }
          this.#objectStart = this.#i;
          this.#scan = new JsonScan(this.#i);
          this.#phase = "object";
          break;
        }
      }
    }
  }
}
