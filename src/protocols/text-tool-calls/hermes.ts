/**
 * `hermes` (Hermes 2 Pro / 3, Qwen2.5, Qwen3): `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
 *
 * @module
 */
import { bad, done, endOfText, MORE, type Region, type Step } from "./region.ts";
import { callFromObject, JsonScan, NOT_JSON, type RegionText, tryParseJson } from "./scan.ts";
import type { TextToolCall, TextToolCallFormat } from "./text-tool-call.ts";

export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";

/**
 * `<tool_call>` + whitespace + a JSON call object + whitespace + `</tool_call>`. Several objects in one
 * block (one per line, as Ollama's Qwen templates write them) are several calls.
 */
export class JsonTagRegion implements Region {
  readonly #format: TextToolCallFormat;
  #phase: "open" | "json" | "close" = "open";
  #i: number;
  #jsonStart = 0;
  #jsonEnd = 0;
  #scan: JsonScan | undefined;
  readonly #objects: string[] = [];

  /** `start`: where the content after `<tool_call>` begins. */
  constructor(format: TextToolCallFormat, start: number) {
    this.#format = format;
    this.#i = start;
  }

  get cursor(): number {
    return this.#phase === "json" ? this.#scan!.position : this.#i;
  }

  step(text: RegionText, final: boolean): Step {
    for (;;) {
      if (this.#phase === "open") {
        this.#i = text.skipSpace(this.#i);
        if (this.#i === text.length) return endOfText(final, "<tool_call>");
        if (text.code(this.#i) !== 123 /* { */) return bad("<tool_call> is not followed by a JSON object");
        this.#jsonStart = this.#i;
        this.#scan = new JsonScan(this.#i);
        this.#phase = "json";
      }
      if (this.#phase === "json") {
        const end = this.#scan!.feed(text);
        if (end === -1) return endOfText(final, "<tool_call>");
        this.#objects.push(text.slice(this.#jsonStart, end));
        this.#jsonEnd = end;
        this.#i = end;
        this.#phase = "close";
      }
      this.#i = text.skipSpace(this.#i);
      if (this.#i < text.length && text.code(this.#i) === 123 /* { */) {
        this.#phase = "open";
        continue;
      }
      const close = text.match(this.#i, TOOL_CALL_CLOSE);
      if (close === "partial" && !final) return MORE;
      if (close !== "yes") return bad("<tool_call> is not closed by </tool_call>", this.#jsonEnd);
      const end = this.#i + TOOL_CALL_CLOSE.length;
      const calls: TextToolCall[] = [];
      const warnings: string[] = [];
      for (const object of this.#objects) {
        const value = tryParseJson(object);
        if (value === NOT_JSON) return bad("<tool_call> content is not valid JSON", end);
        const call = callFromObject(value, this.#format, warnings);
        if (typeof call === "string") return bad(call, end);
        calls.push(call);
      }
      return done(end, calls, warnings);
    }
  }
}
