/**
 * `qwen3-coder`: `[<tool_call>] <function=NAME> (<parameter=KEY>VALUE</parameter>)* </function> [</tool_call>]`.
 *
 * @module
 */
import { JsonTagRegion, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./hermes.ts";
import { bad, done, endOfText, MORE, type Region, type Step } from "./region.ts";
import { isSpace, NOT_JSON, type RegionText, setOwn, tryParseJson } from "./scan.ts";
import { MAX_NAME } from "./text-tool-call.ts";

export const FUNCTION_OPEN = "<function=";
const FUNCTION_CLOSE = "</function>";
const PARAMETER_OPEN = "<parameter=";
const PARAMETER_CLOSE = "</parameter>";

/** Characters a qwen3-coder function or parameter name may not contain. */
function isBadNameChar(code: number): boolean {
  return isSpace(code) || code === 60 /* < */ || code === 34 || code === 39 || code === 123 || code === 125;
}

/** Raw parameter text → value: one newline trimmed each side; JSON non-strings become values. */
function qwenParameterValue(raw: string): unknown {
  const start = raw.startsWith("\n") ? 1 : 0;
  const end = raw.length > start && raw.endsWith("\n") ? raw.length - 1 : raw.length;
  const text = raw.slice(start, end);
  const parsed = tryParseJson(text);
  return parsed === NOT_JSON || typeof parsed === "string" ? text : parsed;
}

/**
 * qwen3-coder XML: `[<tool_call>] <function=NAME> (<parameter=KEY>VALUE</parameter>)* </function> [</tool_call>]`.
 * Inside `<tool_call>`, a JSON body (`{`) is read as Hermes.
 */
export class QwenXmlRegion implements Region {
  readonly #wrapped: boolean;
  #phase: "open" | "function-name" | "body" | "parameter-name" | "value" | "close";
  #i: number;
  #nameStart = 0;
  #name = "";
  #parameterName = "";
  #valueStart = 0;
  #searchFrom = 0;
  /** Just past `</function>` (wrapped form). */
  #functionEnd = 0;
  readonly #parameters: [string, string][] = [];
  #json: JsonTagRegion | undefined;

  constructor(wrapped: boolean) {
    this.#wrapped = wrapped;
    this.#i = wrapped ? TOOL_CALL_OPEN.length : FUNCTION_OPEN.length;
    this.#phase = wrapped ? "open" : "function-name";
    this.#nameStart = this.#i;
  }

  get cursor(): number {
    if (this.#json) return this.#json.cursor;
    return this.#phase === "value" ? this.#searchFrom : this.#i;
  }

  step(text: RegionText, final: boolean): Step {
    if (this.#json) return this.#json.step(text, final);
    const what = this.#wrapped ? "<tool_call>" : "<function=";
    for (;;) {
      switch (this.#phase) {
        case "open": {
          this.#i = text.skipSpace(this.#i);
          const match = text.match(this.#i, FUNCTION_OPEN);
          if (match === "partial") return endOfText(final, what);
          if (match === "no") {
            if (text.code(this.#i) === 123 /* { */) {
              this.#json = new JsonTagRegion("qwen3-coder", this.#i);
              return this.#json.step(text, final);
            }
            return bad("<tool_call> is not followed by <function=NAME>");
          }
          this.#i += FUNCTION_OPEN.length;
          this.#nameStart = this.#i;
          this.#phase = "function-name";
          break;
        }
        case "function-name": {
          const name = this.#readName(text);
          if (name === undefined) return endOfText(final, what);
          if (name === "") return bad("invalid function name in <function=NAME>");
          this.#name = name;
          this.#phase = "body";
          break;
        }
        case "body": {
          this.#i = text.skipSpace(this.#i);
          const parameter = text.match(this.#i, PARAMETER_OPEN);
          if (parameter === "yes") {
            this.#i += PARAMETER_OPEN.length;
            this.#nameStart = this.#i;
            this.#phase = "parameter-name";
            break;
          }
          const end = text.match(this.#i, FUNCTION_CLOSE);
          if (end === "yes") {
            this.#i += FUNCTION_CLOSE.length;
            if (!this.#wrapped) return this.#done(this.#i);
            this.#functionEnd = this.#i;
            this.#phase = "close";
            break;
          }
          if (parameter === "partial" || end === "partial") return endOfText(final, what);
          return bad(`unexpected text in <function=${this.#name}>`);
        }
        case "parameter-name": {
          const name = this.#readName(text);
          if (name === undefined) return endOfText(final, what);
          if (name === "") return bad("invalid parameter name in <parameter=KEY>");
          this.#parameterName = name;
          this.#valueStart = this.#i;
          this.#searchFrom = this.#i;
          this.#phase = "value";
          break;
        }
        case "value": {
          const at = text.indexOf(PARAMETER_CLOSE, this.#searchFrom);
          if (at === -1) {
            this.#searchFrom = Math.max(this.#searchFrom, text.length - PARAMETER_CLOSE.length + 1);
            return endOfText(final, what);
          }
          // Structural only when what comes next is another parameter or the end of the function.
          const next = text.skipSpace(at + PARAMETER_CLOSE.length);
          const parameter = text.match(next, PARAMETER_OPEN);
          const end = text.match(next, FUNCTION_CLOSE);
          if (parameter === "yes" || end === "yes") {
            this.#parameters.push([this.#parameterName, text.slice(this.#valueStart, at)]);
            this.#i = at + PARAMETER_CLOSE.length;
            this.#phase = "body";
            break;
          }
          if ((parameter === "partial" || end === "partial") && !final) {
            this.#searchFrom = at;
            return MORE;
          }
          this.#searchFrom = at + 1;
          break;
        }
        case "close": {
          this.#i = text.skipSpace(this.#i);
          const match = text.match(this.#i, TOOL_CALL_CLOSE);
          if (match === "yes") return this.#done(this.#i + TOOL_CALL_CLOSE.length);
          if (match === "partial" && !final) return MORE;
          return bad("<tool_call> is not closed by </tool_call>", this.#functionEnd);
        }
      }
    }
  }

  /** Reads a name up to `>`: the name, "" when invalid, undefined when the text ends first. */
  #readName(text: RegionText): string | undefined {
    const end = text.length;
    while (this.#i < end) {
      const code = text.code(this.#i);
      if (code === 62 /* > */) {
        const name = text.slice(this.#nameStart, this.#i);
        this.#i++;
        return name;
      }
      if (isBadNameChar(code) || this.#i - this.#nameStart >= MAX_NAME) return "";
      this.#i++;
    }
    return undefined;
  }

  #done(end: number): Step {
    const args: Record<string, unknown> = {};
    for (const [key, raw] of this.#parameters) setOwn(args, key, qwenParameterValue(raw));
    return done(end, [{ name: this.#name, arguments: args, argumentsText: JSON.stringify(args) }]);
  }
}
