/**
 * `mistral`: `[TOOL_CALLS]` + a JSON array or object, or `name[CALL_ID]id[ARGS]{json}` (tokenizer v11+).
 *
 * @module
 */
import { bad, done, endOfText, type Region, type Step } from "./region.ts";
import {
  callFromObject,
  isPlainObject,
  JsonScan,
  NOT_JSON,
  notAnObject,
  type RegionText,
  tryParseJson,
} from "./scan.ts";
import { MAX_NAME, type TextToolCall } from "./text-tool-call.ts";

export const MISTRAL_OPEN = "[TOOL_CALLS]";
const MISTRAL_ARGS = "[ARGS]";
const MISTRAL_CALL_ID = "[CALL_ID]";

function isMistralNameChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 /* _ */ ||
    code === 45 /* - */ ||
    code === 46 /* . */
  );
}

/**
 * `[TOOL_CALLS]` + `[{call}, ...]` | `{call}` | `name[CALL_ID]id[ARGS]{args}` | `name[ARGS]{args}` | `name{args}`.
 */
export class MistralRegion implements Region {
  #phase: "open" | "array" | "object" | "name" | "marker" | "call-id" | "args-open" | "args" = "open";
  #i = MISTRAL_OPEN.length;
  #start = 0;
  #name = "";
  #sawCallId = false;
  #scan: JsonScan | undefined;

  get cursor(): number {
    return this.#scan && (this.#phase === "array" || this.#phase === "object" || this.#phase === "args")
      ? this.#scan.position
      : this.#i;
  }

  step(text: RegionText, final: boolean): Step {
    for (;;) {
      switch (this.#phase) {
        case "open": {
          this.#i = text.skipSpace(this.#i);
          if (this.#i === text.length) return endOfText(final, MISTRAL_OPEN);
          const code = text.code(this.#i);
          this.#start = this.#i;
          if (code === 91 /* [ */ || code === 123 /* { */) {
            this.#scan = new JsonScan(this.#i);
            this.#phase = code === 91 ? "array" : "object";
          } else if (isMistralNameChar(code)) {
            this.#phase = "name";
          } else {
            return bad(`${MISTRAL_OPEN} is not followed by a tool call`);
          }
          break;
        }
        case "array":
        case "object": {
          const end = this.#scan!.feed(text);
          if (end === -1) return endOfText(final, MISTRAL_OPEN);
          const value = tryParseJson(text.slice(this.#start, end));
          if (value === NOT_JSON) return bad(`${MISTRAL_OPEN} content is not valid JSON`, end);
          const items = this.#phase === "array" ? value : [value];
          if (!Array.isArray(items) || items.length === 0)
            return bad(`${MISTRAL_OPEN} has no tool call`, end);
          const calls: TextToolCall[] = [];
          const warnings: string[] = [];
          for (const item of items) {
            const call = callFromObject(item, "mistral", warnings);
            if (typeof call === "string") return bad(call, end);
            calls.push(call);
          }
          return done(end, calls, warnings);
        }
        case "name": {
          const end = text.length;
          while (this.#i < end && isMistralNameChar(text.code(this.#i))) {
            if (this.#i - this.#start >= MAX_NAME) return bad(`tool name after ${MISTRAL_OPEN} is too long`);
            this.#i++;
          }
          if (this.#i === end) return endOfText(final, MISTRAL_OPEN);
          this.#name = text.slice(this.#start, this.#i);
          const code = text.code(this.#i);
          if (code === 91 /* [ */) {
            this.#phase = "marker";
          } else if (code === 123 /* { */) {
            this.#start = this.#i;
            this.#scan = new JsonScan(this.#i);
            this.#phase = "args";
          } else {
            return bad(`invalid tool name after ${MISTRAL_OPEN}`);
          }
          break;
        }
        case "marker": {
          const args = text.match(this.#i, MISTRAL_ARGS);
          if (args === "yes") {
            this.#i += MISTRAL_ARGS.length;
            this.#phase = "args-open";
            break;
          }
          const callId = this.#sawCallId ? "no" : text.match(this.#i, MISTRAL_CALL_ID);
          if (callId === "yes") {
            this.#i += MISTRAL_CALL_ID.length;
            this.#start = this.#i;
            this.#sawCallId = true;
            this.#phase = "call-id";
            break;
          }
          if (args === "partial" || callId === "partial") return endOfText(final, MISTRAL_OPEN);
          return bad(`tool name after ${MISTRAL_OPEN} is not followed by ${MISTRAL_ARGS}`);
        }
        case "call-id": {
          const end = text.length;
          while (this.#i < end && isMistralNameChar(text.code(this.#i))) {
            if (this.#i - this.#start >= MAX_NAME) return bad(`${MISTRAL_CALL_ID} is too long`);
            this.#i++;
          }
          if (this.#i === end) return endOfText(final, MISTRAL_OPEN);
          if (text.code(this.#i) !== 91 /* [ */) {
            return bad(`${MISTRAL_CALL_ID} is not followed by ${MISTRAL_ARGS}`);
          }
          this.#phase = "marker";
          break;
        }
        case "args-open": {
          this.#i = text.skipSpace(this.#i);
          if (this.#i === text.length) return endOfText(final, MISTRAL_OPEN);
          const code = text.code(this.#i);
          if (code !== 123 && code !== 91) return bad(`${MISTRAL_ARGS} is not followed by JSON`);
          this.#start = this.#i;
          this.#scan = new JsonScan(this.#i);
          this.#phase = "args";
          break;
        }
        case "args": {
          const end = this.#scan!.feed(text);
          if (end === -1) return endOfText(final, MISTRAL_OPEN);
          const raw = text.slice(this.#start, end);
          const value = tryParseJson(raw);
          if (value === NOT_JSON)
            return bad(`arguments of tool call "${this.#name}" are not valid JSON`, end);
          if (isPlainObject(value))
            return done(end, [{ name: this.#name, arguments: value, argumentsText: raw }]);
          const call = { name: this.#name, arguments: {}, argumentsText: raw };
          return done(end, [call], [notAnObject("mistral", this.#name)]);
        }
      }
    }
  }
}
