/**
 * Structured output through a forced tool, for the models that have no native JSON-Schema output
 * (Anthropic models before `output_config.format`, most Bedrock Converse models): the request offers one
 * extra tool whose input schema is the answer's schema and makes the model call a tool; the call of that
 * tool *is* the answer. This module is that rule, once, on neutral values:
 *
 * - {@link outputToolSpec} is the tool a protocol adds (its name refused when a caller's tool has it);
 * - {@link outputToolAnswer} turns a `Response` whose message calls it into a plain answer: the call's
 *   argument JSON becomes the message text, the call leaves `toolCalls`, `stopReason` is `stop`, and
 *   `native` is dropped (its blocks hold a tool call that no result will ever answer, which every API would
 *   refuse on replay), with a warning saying so when it held more than the call;
 * - {@link outputToolEvents} does the same to a stream: the call's argument pieces come out as
 *   `text-delta`s as they arrive, its start and end events are not passed on, and `done` carries the
 *   rewritten response.
 *
 * The HTTP shell applies the last two whenever `buildRequest` says it used the tool (`outputTool`), so a
 * protocol only adds the tool and forces the choice.
 *
 * @module
 */

import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import type { PreparedResponseFormat } from "../core/structured-output.ts";
import type { ToolSpec } from "../core/tool-spec.ts";
import { ValidationError } from "../core/validation-error.ts";

/**
 * The tool a forced-tool protocol adds for `format`: named after the format (`responseFormat.name`,
 * default `"output"`), its parameters the format's schema (`{ type: "object" }` for plain JSON). A tool of
 * the caller's with the same name is a `ValidationError` naming `responseFormat.name`.
 *
 * @example
 * ```ts
 * const tool = outputToolSpec(format, tools); // { name: "output", description, inputSchema }
 * ```
 */
export function outputToolSpec(format: PreparedResponseFormat, tools: readonly ToolSpec[]): ToolSpec {
  const name = format.type === "json_schema" ? format.name : "output";
  if (tools.some((tool) => tool.name === name)) {
    throw new ValidationError([
      {
        path: "responseFormat.name",
        message: `${JSON.stringify(name)} is also the name of one of the call's tools; give the format another name`,
      },
    ]);
  }
  const description =
    (format.type === "json_schema" ? format.description : undefined) ??
    "Give the final answer by calling this tool with it as the input.";
  const parameters = format.type === "json_schema" ? format.schema : { type: "object" };
  return { name, description, parameters };
}

/**
 * `response` with the call of the output tool `name` turned into the answer's text (see the module). A
 * response that does not call it is returned as it is: the model called one of the caller's tools instead
 * (a turn of the agent loop), or ended without calling any (its text is read as the answer).
 */
export function outputToolAnswer(response: Response, name: string): Response {
  const { message } = response;
  const call = message.toolCalls.find((entry) => entry.name === name);
  if (!call) return response;
  const text = call.argumentsText ?? JSON.stringify(call.arguments);
  const rest = message.toolCalls.filter((entry) => entry !== call);
  const warnings = [...(response.warnings ?? [])];
  if (rest.length > 0) {
    warnings.push(
      `the model called ${rest.map((entry) => entry.name).join(", ")} beside the output tool ${name}; those calls are in toolCalls, not run`,
    );
  }
  if (message.content.trim() !== "") {
    warnings.push(
      `the model wrote ${message.content.length} characters of text beside the output tool ${name}'s call; the answer is the call's input, that text is not part of it`,
    );
  }
  const { native: _native, ...withoutNative } = message;
  const blocks = (message.native as { blocks?: unknown } | undefined)?.blocks;
  if (Array.isArray(blocks) && blocks.length > 1) {
    warnings.push(
      `the answer came as a call of the output tool ${name}: its native blocks are not kept for replay (they hold a tool call no result answers); the answer is replayed as text`,
    );
  }
  return {
    ...response,
    message: { ...withoutNative, content: text, toolCalls: rest },
    stopReason: rest.length > 0 ? response.stopReason : "stop",
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * `events` with the output tool `name`'s call streamed as text (see the module); every other event as it
 * comes, and `done` carrying {@link outputToolAnswer} of its response.
 */
export async function* outputToolEvents(
  events: AsyncIterable<StreamEvent>,
  name: string,
): AsyncGenerator<StreamEvent, void, undefined> {
  let outputIndex: number | undefined;
  // The other calls' positions in the final `toolCalls`, which no longer holds the output tool's call.
  const shifted = <E extends { index: number }>(event: E): E =>
    outputIndex !== undefined && event.index > outputIndex ? { ...event, index: event.index - 1 } : event;
  for await (const event of events) {
    switch (event.type) {
      case "tool-call-start":
        if (outputIndex === undefined && event.name === name) {
          outputIndex = event.index;
          continue;
        }
        yield shifted(event);
        continue;
      case "tool-call-delta":
        if (event.index === outputIndex) {
          if (event.argumentsDelta !== "") yield { type: "text-delta", text: event.argumentsDelta };
          continue;
        }
        yield shifted(event);
        continue;
      case "tool-call-end":
        if (event.index === outputIndex) continue;
        yield shifted(event);
        continue;
      case "done":
        yield { type: "done", response: outputToolAnswer(event.response, name) };
        continue;
    }
    yield event;
  }
}
