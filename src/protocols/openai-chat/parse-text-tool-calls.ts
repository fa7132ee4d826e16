/**
 * Tool calls written as TEXT inside `content`, as self-hosted OpenAI-compatible servers return them when no
 * tool parser runs on the server (vLLM without `--tool-call-parser`, Ollama raw mode, gateways):
 *
 * - `hermes` (Hermes 2 Pro / 3, Qwen2.5, Qwen3): `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`,
 *   any number of them, with text before, between and after. `arguments` may be an object or a JSON string
 *   (`parameters` is accepted too). The JSON is scanned string-aware, so `</tool_call>` inside a JSON string
 *   does not end the call.
 * - `qwen3-coder`: `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n...</function>\n</tool_call>`,
 *   also without the `<tool_call>` wrapper, and a Hermes JSON body inside `<tool_call>`. Values are raw text:
 *   one leading and one trailing newline are trimmed; a value that parses as a JSON number, boolean, object,
 *   array or null becomes that value, anything else stays the string. As in vLLM's `qwen3_coder` parser, a
 *   `</parameter>` ends a value only when whitespace and then `<parameter=` or `</function>` follow it, so a
 *   value may contain `</parameter>` (or `</tool_call>`) as literal text.
 * - `mistral`: `[TOOL_CALLS]` followed by a JSON array `[{"name": ..., "arguments": {...}}]` (tokenizers before
 *   v11), or `[TOOL_CALLS]name[ARGS]{json}` (v11+, possibly repeated; `[CALL_ID]id` before `[ARGS]` and a
 *   missing `[ARGS]` — `name{json}` — are accepted), or a single call object.
 * - `llama3-json` (Llama 3.1+ JSON tool calling): the message itself is `{"name": ..., "parameters": {...}}`
 *   (or `"arguments"`), optionally after `<|python_tag|>`, possibly several objects separated by `;` and/or
 *   whitespace. Only a message that STARTS (after whitespace) with `{` or `<|python_tag|>` can be calls: if
 *   its first object is not a call the whole message is text (a bare JSON answer such as `{"name": "Alice"}`
 *   without a warning), and whatever follows the last call (other than `;`/whitespace) is text.
 *
 * Guarantees:
 * - Visible text streams through as soon as it is known not to be part of a tag: only a suffix that could
 *   still be the start of a tag (e.g. `<tool_` at the end of a delta) is held back. For `llama3-json` a
 *   message that could still be a call is held until it is decided; other text is released at once.
 * - A well-formed tag and its content never appear in text. Text around tags is kept verbatim (the newlines
 *   a model writes around `<tool_call>` blocks included).
 * - A malformed tag (bad JSON, missing name, unclosed at end of stream, unexpected content) is released as
 *   TEXT with a warning: never thrown, never dropped. The opening tag (or, where a JSON body or a whole
 *   function was read, everything up to its end) is released and what follows is scanned again as text, so
 *   a good call after a broken one is still found.
 * - `arguments` is always a plain object; anything else gives `{}` with the raw text in `argumentsText`
 *   (and a warning). `argumentsText` is the model's own text where it wrote the arguments as a separate
 *   text (a JSON string value, Mistral's `[ARGS]` segment), else `JSON.stringify(arguments)`.
 * - The result does not depend on how the text is cut into deltas: `parseTextToolCalls(text)` is exactly
 *   `push(text)` + `finish()`. Scanning keeps its position between deltas: no delta re-scans the text
 *   before it (the only look-back is the few characters of a possible partial tag), and a long call is not
 *   re-copied per delta either (see {@link RegionText}).
 *
 * @see https://docs.vllm.ai/en/latest/features/tool_calling.html (parsers `hermes`, `qwen3_coder`, `mistral`, `llama3_json`)
 * @see https://qwen.readthedocs.io/en/latest/framework/function_call.html
 * @see https://llama.meta.com/docs/model-cards-and-prompt-formats/llama3_1/#json-based-tool-calling
 */

export type TextToolCallFormat = "hermes" | "qwen3-coder" | "mistral" | "llama3-json";

export interface TextToolCall {
  name: string;
  /** Always a plain object (`{}` when the model's arguments were not a JSON object). */
  arguments: Record<string, unknown>;
  /** The arguments as text: the model's own text where it wrote one, else `JSON.stringify(arguments)`. */
  argumentsText: string;
}

const TEXT_TOOL_CALL_FORMATS: readonly TextToolCallFormat[] = [
  "hermes",
  "qwen3-coder",
  "mistral",
  "llama3-json",
];

const TOOL_CALL_OPEN = "<tool_call>";
const TOOL_CALL_CLOSE = "</tool_call>";
const FUNCTION_OPEN = "<function=";
const FUNCTION_CLOSE = "</function>";
const PARAMETER_OPEN = "<parameter=";
const PARAMETER_CLOSE = "</parameter>";
const MISTRAL_OPEN = "[TOOL_CALLS]";
const MISTRAL_ARGS = "[ARGS]";
const MISTRAL_CALL_ID = "[CALL_ID]";
const PYTHON_TAG = "<|python_tag|>";

/** Longest function / parameter name, Mistral tool name or call id read before the tag is given up on. */
const MAX_NAME = 256;

/** Whole-message parse (non-streaming responses). Never throws. */
export function parseTextToolCalls(
  text: string,
  format: TextToolCallFormat,
): { text: string; toolCalls: TextToolCall[]; warnings: string[] } {
  if (typeof text !== "string") return { text: "", toolCalls: [], warnings: ["text tool calls: no text"] };
  if (!TEXT_TOOL_CALL_FORMATS.includes(format)) {
    return { text, toolCalls: [], warnings: [`text tool calls: unknown format ${JSON.stringify(format)}`] };
  }
  try {
    const scanner = new TextToolCallScanner(format);
    const first = scanner.push(text);
    const rest = scanner.finish();
    return {
      text: first.text + rest.text,
      toolCalls: [...first.toolCalls, ...rest.toolCalls],
      warnings: rest.warnings,
    };
  } catch (error) {
    // Not expected; the contract is that a parse never throws, so the content survives as text.
    return { text, toolCalls: [], warnings: [`${format}: text tool call parse failed (${String(error)})`] };
  }
}

/** Streaming scanner: feed content deltas as they arrive. */
export class TextToolCallScanner {
  readonly #engine: Engine;
  readonly #warnings: string[] = [];
  #finished = false;

  constructor(format: TextToolCallFormat) {
    switch (format) {
      case "hermes":
        this.#engine = new TagEngine(format, [TOOL_CALL_OPEN], this.#warnings);
        break;
      case "qwen3-coder":
        this.#engine = new TagEngine(format, [TOOL_CALL_OPEN, FUNCTION_OPEN], this.#warnings);
        break;
      case "mistral":
        this.#engine = new TagEngine(format, [MISTRAL_OPEN], this.#warnings);
        break;
      case "llama3-json":
        this.#engine = new Llama3Engine(this.#warnings);
        break;
      default:
        throw new TypeError(`Unknown text tool call format ${JSON.stringify(format)}`);
    }
  }

  /**
   * Returns the visible text that can be released now (never any part of a tool-call tag or its content)
   * and the tool calls completed by this delta.
   */
  push(delta: string): { text: string; toolCalls: TextToolCall[] } {
    if (this.#finished) throw new Error("TextToolCallScanner.push() after finish()");
    const out: Output = { text: [], toolCalls: [] };
    if (delta !== "") this.#engine.push(delta, out);
    return { text: out.text.join(""), toolCalls: out.toolCalls };
  }

  /**
   * End of stream: flushes held-back text; an unterminated or malformed call is released as TEXT (not
   * dropped, not a crash) with a warning. `warnings` holds every warning of the stream, including those
   * raised while pushing. A second call returns nothing new.
   */
  finish(): { text: string; toolCalls: TextToolCall[]; warnings: string[] } {
    const out: Output = { text: [], toolCalls: [] };
    if (!this.#finished) {
      this.#finished = true;
      this.#engine.finish(out);
    }
    return { text: out.text.join(""), toolCalls: out.toolCalls, warnings: [...this.#warnings] };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Shared pieces

interface Output {
  text: string[];
  toolCalls: TextToolCall[];
}

interface Engine {
  push(delta: string, out: Output): void;
  finish(out: Output): void;
}

type Match = "yes" | "partial" | "no";

/** Whether `literal` starts at `at` of `s`; `partial` when `s` ends inside a possible match. */
function matchAt(s: string, at: number, literal: string): Match {
  if (s.startsWith(literal, at)) return "yes";
  if (s.length - at < literal.length && literal.startsWith(s.slice(at))) return "partial";
  return "no";
}

function isSpace(code: number): boolean {
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
class RegionText {
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
class JsonScan {
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

const NOT_JSON: unique symbol = Symbol("not JSON");

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An own data property, safe for any key (`__proto__` included). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function notAnObject(format: TextToolCallFormat, name: string): string {
  return `${format}: arguments of tool call "${name}" are not a JSON object; using {}`;
}

/** `{"name": ..., "arguments" | "parameters": ...}` → a call, or the reason it is not one. */
function callFromObject(
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

// ---------------------------------------------------------------------------------------------------------
// Tag formats: hermes, qwen3-coder, mistral

type Step =
  | { kind: "more" }
  | { kind: "done"; end: number; calls: TextToolCall[]; warnings: string[] }
  /** Released as text: the opening tag, or up to `textEnd` where a whole part was read (e.g. a JSON body). */
  | { kind: "bad"; reason: string; textEnd?: number };

const MORE: Step = { kind: "more" };

/**
 * One tool-call region, from its opening tag (at position 0 of its text) to its end. After `more`, `step`
 * is called again once the text is longer, and resumes where it stopped.
 */
interface Region {
  step(text: RegionText, final: boolean): Step;
  /** The first position the region will still read (everything before may be compacted). */
  readonly cursor: number;
}

function done(end: number, calls: TextToolCall[], warnings: string[] = []): Step {
  return { kind: "done", end, calls, warnings };
}

function bad(reason: string, textEnd?: number): Step {
  return textEnd === undefined ? { kind: "bad", reason } : { kind: "bad", reason, textEnd };
}

/** The text ended before the region did: wait for more, or at end of stream give up. */
function endOfText(final: boolean, what: string): Step {
  return final ? bad(`unterminated ${what} at end of stream`) : MORE;
}

/**
 * Text state + regions. In text state the buffer holds at most a partial opening tag between deltas, so
 * each delta is scanned once; inside a region, deltas are appended to the region's text and the region
 * resumes from its own position.
 */
class TagEngine implements Engine {
  readonly #format: TextToolCallFormat;
  readonly #openers: readonly string[];
  /** Every opener of a format starts with the same character (`<` or `[`). */
  readonly #lead: string;
  readonly #warnings: string[];
  /** Text state: unreleased text (a possible partial opener). */
  #buf = "";
  #region: Region | undefined;
  #text: RegionText | undefined;
  #opener = "";

  constructor(format: TextToolCallFormat, openers: readonly string[], warnings: string[]) {
    this.#format = format;
    this.#openers = openers;
    this.#lead = openers[0]![0]!;
    this.#warnings = warnings;
  }

  push(delta: string, out: Output): void {
    if (this.#text) this.#text.append(delta);
    else this.#buf += delta;
    this.#drive(false, out);
  }

  finish(out: Output): void {
    this.#drive(true, out);
  }

  #drive(final: boolean, out: Output): void {
    for (;;) {
      if (this.#region && this.#text) {
        const text = this.#text;
        const step = this.#region.step(text, final);
        if (step.kind === "more") {
          text.compact(this.#region.cursor);
          return;
        }
        this.#region = undefined;
        this.#text = undefined;
        if (step.kind === "done") {
          out.toolCalls.push(...step.calls);
          this.#warnings.push(...step.warnings);
          this.#buf = text.slice(step.end);
        } else {
          // The opening tag (or the part read whole) becomes text; what follows is scanned again as text,
          // so a good call after a broken one is still found.
          this.#warnings.push(`${this.#format}: ${step.reason}; released as text`);
          const textEnd = step.textEnd ?? this.#opener.length;
          out.text.push(text.slice(0, textEnd));
          this.#buf = text.slice(textEnd);
        }
        continue;
      }
      const buf = this.#buf;
      let hold = buf.length;
      let at = buf.indexOf(this.#lead);
      search: while (at !== -1) {
        let partial = false;
        for (const opener of this.#openers) {
          const match = matchAt(buf, at, opener);
          if (match === "yes") {
            if (at > 0) out.text.push(buf.slice(0, at));
            this.#buf = "";
            this.#text = new RegionText(buf.slice(at));
            this.#opener = opener;
            this.#region = this.#newRegion(opener);
            break search;
          }
          if (match === "partial") partial = true;
        }
        if (partial && !final) {
          hold = at;
          break;
        }
        at = buf.indexOf(this.#lead, at + 1);
      }
      if (this.#region) continue;
      if (hold > 0) out.text.push(buf.slice(0, hold));
      this.#buf = buf.slice(hold);
      return;
    }
  }

  #newRegion(opener: string): Region {
    if (opener === MISTRAL_OPEN) return new MistralRegion();
    if (opener === FUNCTION_OPEN) return new QwenXmlRegion(false);
    return this.#format === "qwen3-coder"
      ? new QwenXmlRegion(true)
      : new JsonTagRegion(this.#format, TOOL_CALL_OPEN.length);
  }
}

/**
 * `<tool_call>` + whitespace + a JSON call object + whitespace + `</tool_call>`. Several objects in one
 * block (one per line, as Ollama's Qwen templates write them) are several calls.
 */
class JsonTagRegion implements Region {
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
class QwenXmlRegion implements Region {
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
class MistralRegion implements Region {
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

// ---------------------------------------------------------------------------------------------------------
// llama3-json: the message itself is the call(s)

/** An invalid or unterminated object with a `"name":` key was probably meant as a call. */
const NAME_KEY = /"name"\s*:/;

/**
 * `start`: only whitespace (and maybe the start of `<|python_tag|>`) so far; `calls`: the message is being
 * read as call objects; `text`: decided to be text, everything passes straight through.
 */
class Llama3Engine implements Engine {
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
