/**
 * Shared by the text tool-call tests: the formats, the tags that must never leak into text, a streaming
 * driver that records what each push released, and a parse that checks whole and 1-character streaming
 * agree.
 */
import { expect } from "vitest";
import {
  parseTextToolCalls,
  type TextToolCall,
  type TextToolCallFormat,
  TextToolCallScanner,
} from "../../../src/protocols/text-tool-calls/index.ts";

export const FORMATS: readonly TextToolCallFormat[] = ["hermes", "qwen3-coder", "mistral", "llama3-json"];
/** No part of these may ever be released as text when the calls are well formed. */
export const TAGS = ["<tool_call", "</tool_call", "<function=", "[TOOL_CALLS]", "<|python_tag|>"];
export const LONGEST_OPENER = Math.max(
  ..."<tool_call>|<function=|[TOOL_CALLS]".split("|").map((t) => t.length),
);

export interface Streamed {
  text: string;
  /** The text of each push (and of finish) that released any. */
  textChunks: string[];
  toolCalls: TextToolCall[];
  warnings: string[];
}

/** Feeds `chunks` one by one; `onPush(inputSoFar, releasedSoFar)` after each push. */
export function stream(
  format: TextToolCallFormat,
  chunks: readonly string[],
  onPush?: (pushed: number, released: number) => void,
): Streamed {
  const scanner = new TextToolCallScanner(format);
  const textChunks: string[] = [];
  const toolCalls: TextToolCall[] = [];
  let pushed = 0;
  let released = 0;
  for (const chunk of chunks) {
    const out = scanner.push(chunk);
    pushed += chunk.length;
    released += out.text.length;
    if (out.text !== "") textChunks.push(out.text);
    toolCalls.push(...out.toolCalls);
    onPush?.(pushed, released);
  }
  const end = scanner.finish();
  if (end.text !== "") textChunks.push(end.text);
  toolCalls.push(...end.toolCalls);
  return { text: textChunks.join(""), textChunks, toolCalls, warnings: end.warnings };
}

export function call(
  name: string,
  args: Record<string, unknown>,
  argumentsText = JSON.stringify(args),
): TextToolCall {
  return { name, arguments: args, argumentsText };
}

/** Parses whole and 1-char streamed, checks both agree, returns the whole parse. */
export function parse(text: string, format: TextToolCallFormat) {
  const whole = parseTextToolCalls(text, format);
  const ones = stream(format, [...text]);
  expect({ text: ones.text, toolCalls: ones.toolCalls, warnings: ones.warnings }).toEqual(whole);
  return whole;
}
