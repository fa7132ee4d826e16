/**
 * The `demo` route and workflow: a scripted provider that needs no key, so a newcomer can call every route
 * and run, pause and resume a task within a minute of cloning. It is deterministic: a user turn with tools
 * available gets a tool call; tool results get a closing answer; otherwise it echoes.
 *
 * @module
 */
import type { Workflow } from "../agent/workflow.ts";
import type { CallOptions } from "../core/call-options.ts";
import { type Content, contentText } from "../core/content.ts";
import { type MessageInput, normalizeMessages } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { normalizeToolSpecs, type ToolSpecInput } from "../core/tool-spec.ts";
import { ValidationError } from "../core/validation-error.ts";

/** The text of `content`, each image or file shown as `[image]` / `[file]` (the demo cannot see them). */
function textOf(content: Content | undefined): string {
  if (!Array.isArray(content)) return contentText(content);
  return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
}

/**
 * A provider that answers from a fixed script: no network, no key. `delayMs` makes each call take that
 * long (abortable), so a person trying the demo task has time to pause it.
 */
export function demoProvider(options: { delayMs?: number } = {}): Provider {
  const wait = async (signal: AbortSignal | undefined) => {
    const ms = options.delayMs ?? 0;
    if (ms <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          reject(
            new ProviderError({ kind: "aborted", message: "call aborted", provider: "demo", model: "demo" }),
          );
        },
        { once: true },
      );
    });
  };
  const answer = (
    messages: readonly MessageInput[],
    tools: readonly ToolSpecInput[] | undefined,
  ): Response => {
    const history = normalizeMessages(messages);
    const last = history.at(-1);
    const specs = normalizeToolSpecs(tools);
    const lastUser = textOf([...history].reverse().find((message) => message.role === "user")?.content);
    const usage = {
      inputTokens: history.reduce((sum, message) => sum + Math.ceil(textOf(message.content).length / 4), 0),
      outputTokens: 12,
    };
    const base = { usage, model: "demo", provider: "demo" };
    if (last?.role === "user" && specs.length > 0 && last.toolResults.length === 0) {
      const tool = specs[0]!;
      return {
        ...base,
        stopReason: "tool-calls",
        message: {
          role: "assistant",
          content: `Let me use ${tool.name}.`,
          toolCalls: [{ id: `demo_${history.length}`, name: tool.name, arguments: { text: lastUser } }],
          toolResults: [],
          synthetic: false,
        },
      };
    }
    const results = last?.toolResults ?? [];
    const content =
      results.length > 0
        ? `Done. The tool said: ${results.map((result) => textOf(result.content)).join("; ")}`
        : `Hello from the modelwire demo route. You said: ${lastUser}`;
    return {
      ...base,
      stopReason: "stop",
      message: { role: "assistant", content, toolCalls: [], toolResults: [], synthetic: false },
    };
  };
  const check = (options: CallOptions | undefined) => {
    // The script answers text: a structured answer it cannot give is refused, never faked or ignored.
    if (options?.responseFormat !== undefined) {
      throw new ValidationError([
        { path: "responseFormat", message: "the demo route answers text only: use a model route" },
      ]);
    }
    if (options?.signal?.aborted)
      throw new ProviderError({ kind: "aborted", message: "call aborted", provider: "demo", model: "demo" });
  };
  return {
    name: "demo",
    model: "demo",
    protocol: "demo",
    async complete(messages, tools, options) {
      check(options);
      await wait(options?.signal);
      return answer(messages, tools);
    },
    async *stream(messages, tools, options): AsyncGenerator<StreamEvent, void, undefined> {
      check(options);
      await wait(options?.signal);
      const response = answer(messages, tools);
      for (const word of response.message.content.split(/(?<= )/)) yield { type: "text-delta", text: word };
      for (const [index, call] of response.message.toolCalls.entries()) {
        yield { type: "tool-call-start", index, id: call.id, name: call.name };
        yield { type: "tool-call-delta", index, id: call.id, argumentsDelta: JSON.stringify(call.arguments) };
        yield { type: "tool-call-end", index, toolCall: call };
      }
      yield { type: "usage", usage: response.usage };
      check(options);
      yield { type: "done", response };
    },
  };
}

/** The `demo` workflow: the demo route with one tool that shouts, two steps in all. */
export const demoWorkflow: Workflow = {
  route: "demo",
  system: "You are the modelwire demo.",
  maxSteps: 4,
  tools: [
    {
      name: "shout",
      description: "Repeats the text in capitals.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: (args) => String(args.text ?? "").toUpperCase(),
    },
  ],
};
