/**
 * A tool-call region of the tag grammars (hermes, qwen3-coder, mistral): the text from an opening tag to
 * the end of its call(s), read step by step as deltas arrive.
 *
 * @module
 */
import type { RegionText } from "./scan.ts";
import type { TextToolCall } from "./text-tool-call.ts";

export type Step =
  | { kind: "more" }
  | { kind: "done"; end: number; calls: TextToolCall[]; warnings: string[] }
  /** Released as text: the opening tag, or up to `textEnd` where a whole part was read (e.g. a JSON body). */
  | { kind: "bad"; reason: string; textEnd?: number };

export const MORE: Step = { kind: "more" };

/**
 * One tool-call region, from its opening tag (at position 0 of its text) to its end. After `more`, `step`
 * is called again once the text is longer, and resumes where it stopped.
 */
export interface Region {
  step(text: RegionText, final: boolean): Step;
  /** The first position the region will still read (everything before may be compacted). */
  readonly cursor: number;
}

export function done(end: number, calls: TextToolCall[], warnings: string[] = []): Step {
  return { kind: "done", end, calls, warnings };
}

export function bad(reason: string, textEnd?: number): Step {
  return textEnd === undefined ? { kind: "bad", reason } : { kind: "bad", reason, textEnd };
}

/** The text ended before the region did: wait for more, or at end of stream give up. */
export function endOfText(final: boolean, what: string): Step {
  return final ? bad(`unterminated ${what} at end of stream`) : MORE;
}
