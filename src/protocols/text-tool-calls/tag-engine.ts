/**
 * The engine of the tag grammars (hermes, qwen3-coder, mistral): text passes through until an opening tag,
 * whose region is then read by the grammar's region class.
 *
 * @module
 */
import { JsonTagRegion, TOOL_CALL_OPEN } from "./hermes.ts";
import { MISTRAL_OPEN, MistralRegion } from "./mistral.ts";
import { FUNCTION_OPEN, QwenXmlRegion } from "./qwen3-coder.ts";
import type { Region } from "./region.ts";
import { type Engine, matchAt, type Output, RegionText } from "./scan.ts";
import type { TextToolCallFormat } from "./text-tool-call.ts";

/**
 * Text state + regions. In text state the buffer holds at most a partial opening tag between deltas, so
 * each delta is scanned once; inside a region, deltas are appended to the region's text and the region
 * resumes from its own position.
 */
export class TagEngine implements Engine {
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
