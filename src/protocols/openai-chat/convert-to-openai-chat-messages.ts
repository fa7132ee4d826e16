import type { Content } from "../../core/content.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { nativeProvenance } from "../native-replay.ts";
import { assistantTextOf, systemTextOf } from "../neutral-blocks.ts";
import { type PendingCall, PendingResults } from "../pending-results.ts";
import {
  clipped,
  contentOf,
  forEachStoredMessage,
  isRecord,
  MISSING_TOOL_RESULT,
  toolArgumentsTextOf,
} from "../stored-history.ts";
import {
  type OpenAIChatContentContext,
  openAIChatPartOf,
  openAIChatUserContentOf,
} from "./convert-to-openai-chat-content.ts";
import {
  OPENAI_CHAT,
  type OpenAIChatContentPart,
  type OpenAIChatEndpointProfile,
  type OpenAIChatMessageParam,
  type OpenAIChatToolCall,
} from "./openai-chat-wire.ts";

export { MISSING_TOOL_RESULT };

/** The model and endpoint a request goes to. */
export interface OpenAIChatReplayTarget {
  model: string;
  profile: OpenAIChatEndpointProfile;
}

/**
 * Neutral history → Chat Completions `messages`. Pure and total: never throws on a stored history; what
 * the API cannot take is in `refused` (each naming its field), for the shell to raise before any request.
 *
 * - User content: a string stays a string; parts become `text`, `image_url`, `file` (PDF) and
 *   `input_audio` parts as `openAIChatPartOf` maps them (a single text part is sent as a string).
 * - System messages take text only: an image or a file there is refused. Assistant turns are text (and
 *   tool calls): their parts are read as text, each image or file left out with a warning.
 * - Tool messages take text only (OpenAI's tool message content is a string or text parts): a result's
 *   text goes in its tool message, its images and files in one user message right after the run of tool
 *   messages (`[contents of the result of tool call <id>]`, then the parts), each with a warning; a tool
 *   message with no text of its own says so. A result answering no call goes as user content, parts kept.
 * - Each tool result is its own `role: "tool"` message with `tool_call_id`, right after the assistant
 *   message that made the call (results on a user message come before its text).
 * - Tool-call `arguments` go out as the original string when the call came from this protocol (a
 *   truncated call survives replay as it was), otherwise as JSON of the parsed object.
 * - A call without an id gets a deterministic one (`call_<message>_<position>`), and a result without a call
 *   id is bound, in order, to the calls of the turn before it that are still unanswered — so the pair stays
 *   consistent. A call without a name is dropped (its result becomes user text).
 * - A call with no result gets an error tool message; a result answering no call becomes user text.
 * - Assistant turns with neither text nor calls are dropped. Reasoning from another provider is never sent;
 *   a DeepSeek-style turn's `reasoning_content` goes back only when the profile says so and the turn came
 *   from this endpoint and model (the provenance rule of `native-replay.ts`: a turn from elsewhere is
 *   rebuilt with a warning that counts the reasoning it drops).
 */
export function convertToOpenAIChatMessages(
  messages: readonly MessageInput[] | readonly unknown[],
  target: OpenAIChatReplayTarget,
): { messages: OpenAIChatMessageParam[]; warnings: string[]; refused: ValidationIssue[] } {
  const warnings: string[] = [];
  const refused: ValidationIssue[] = [];
  const context: OpenAIChatContentContext = { profile: target.profile, warnings, refused };
  const out: OpenAIChatMessageParam[] = [];
  /** The images and files of tool results, each to go in a user message after its run of tool messages. */
  const moved = new Map<OpenAIChatMessageParam, OpenAIChatContentPart[]>();
  const results = new PendingResults<PendingCall, OpenAIChatMessageParam>(
    out,
    {
      output: (call, output, where, added) => {
        const message: OpenAIChatMessageParam = { role: "tool", tool_call_id: call.sent, content: "" };
        message.content = toolContentOf(call.sent, output, where, added, context, (parts) =>
          moved.set(message, parts),
        );
        return message;
      },
      // A result answering no call: its header (one text part in front), then its content, parts kept.
      text: (content, where, added) => ({
        role: "user",
        content: openAIChatUserContentOf(content, where, context, added) ?? "",
      }),
    },
    warnings,
  );

  forEachStoredMessage(messages, warnings, (raw, role, index) => {
    const where = `messages[${index}].content`;
    switch (role) {
      case "system": {
        results.flush();
        const text = systemTextOf(raw.content, where, warnings, refused, "Chat Completions");
        if (text.trim() !== "") out.push({ role: "system", content: text });
        return;
      }
      case "user":
      case "tool": {
        results.answerAll(raw.toolResults, index);
        const content = openAIChatUserContentOf(contentOf(raw.content, where, warnings), where, context);
        if (content !== undefined) {
          results.flush();
          out.push({ role: "user", content });
        }
        return;
      }
      case "assistant": {
        results.flush();
        const text = assistantTextOf(raw.content, index, warnings);
        const assistant = assistantMessage(raw, index, target, text, warnings);
        if (!assistant) return;
        out.push(assistant);
        // Results name the ids sent: a call's id is only rewritten when it had none or repeated one.
        results.open((assistant.tool_calls ?? []).map((call) => ({ original: call.id, sent: call.id })));
        return;
      }
    }
  });
  results.flush();
  return { messages: withMovedParts(out, moved), warnings, refused };
}

/**
 * A tool result's `content` as a tool message takes it: text only (Chat Completions tool messages take a
 * string or text parts). Its images and files are mapped as user parts and handed to `move`, to go in a
 * user message right after the run of tool messages, each with a warning naming it; the tool message then
 * says where they went when it has no text of its own.
 */
function toolContentOf(
  callId: string,
  content: Content,
  where: string,
  /** Parts PendingResults put in front of the result's own (the "Error:" marker). */
  offset: number,
  context: OpenAIChatContentContext,
  move: (parts: OpenAIChatContentPart[]) => void,
): string {
  if (typeof content === "string") return content;
  const texts: string[] = [];
  const parts: OpenAIChatContentPart[] = [];
  content.forEach((part, position) => {
    if (part.type === "text") {
      texts.push(part.text);
      return;
    }
    const partWhere = `${where}[${position - offset}]`;
    const mapped = openAIChatPartOf(part, partWhere, context);
    if (mapped === undefined) return;
    parts.push(mapped);
    context.warnings.push(
      `${partWhere}: Chat Completions tool messages take text only; the ${part.type} is sent in a user message after the tool results`,
    );
  });
  const text = texts.join("");
  if (parts.length === 0) return text;
  move([
    {
      type: "text",
      text: `[${parts.length === 1 ? "content" : "contents"} of the result of tool call ${callId}]`,
    },
    ...parts,
  ]);
  return text.trim() === "" ? "[the result's content is in the next user message]" : text;
}

/** `out` with each run of tool messages followed by one user message holding the parts its results moved. */
function withMovedParts(
  out: OpenAIChatMessageParam[],
  moved: ReadonlyMap<OpenAIChatMessageParam, OpenAIChatContentPart[]>,
): OpenAIChatMessageParam[] {
  if (moved.size === 0) return out;
  const result: OpenAIChatMessageParam[] = [];
  let held: OpenAIChatContentPart[] = [];
  const release = () => {
    if (held.length > 0) result.push({ role: "user", content: held });
    held = [];
  };
  for (const message of out) {
    if (message.role !== "tool") release();
    result.push(message);
    const parts = moved.get(message);
    if (parts) held.push(...parts);
  }
  release();
  return result;
}

/** A system message's text: its text parts joined; an image or a file is refused (system takes text only). */
function assistantMessage(
  raw: Record<string, unknown>,
  index: number,
  target: OpenAIChatReplayTarget,
  text: string,
  warnings: string[],
): OpenAIChatMessageParam | undefined {
  const { replay, sameProtocol: fromThisProtocol } = nativeProvenance(
    raw,
    index,
    { protocol: OPENAI_CHAT, origin: target.profile.kind, model: target.model },
    warnings,
  );
  const toolCalls: OpenAIChatToolCall[] = [];
  const calls = Array.isArray(raw.toolCalls) ? raw.toolCalls : [];
  const seen = new Set<string>();
  calls.forEach((call: unknown, position) => {
    const where = `messages[${index}].toolCalls[${position}]`;
    if (!isRecord(call) || typeof call.name !== "string" || call.name === "") {
      warnings.push(`${where}: tool call without a name; left out`);
      return;
    }
    let id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${index}_${position}`;
    if (id !== call.id) warnings.push(`${where}: tool call without an id; sent as ${clipped(id)}`);
    if (seen.has(id)) {
      const base = id;
      id = `${base}_${position}`;
      // The suffixed id may itself be taken (`x`, `x_2`, `x` → not `x_2` twice).
      for (let n = 2; seen.has(id); n++) id = `${base}_${position}_${n}`;
      warnings.push(`${where}: duplicate tool call id; sent as ${clipped(id)}`);
    }
    seen.add(id);
    toolCalls.push({
      id,
      type: "function",
      function: { name: call.name, arguments: toolArgumentsTextOf(call, fromThisProtocol) },
    });
  });
  if (text === "" && toolCalls.length === 0) {
    warnings.push(`messages[${index}]: assistant turn with no text and no tool calls; left out`);
    return undefined;
  }
  const message: OpenAIChatMessageParam = { role: "assistant", content: text === "" ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (target.profile.echoReasoning && replay !== undefined) {
    const block = replay[0]?.block;
    const reasoning = block === undefined ? undefined : (block.reasoning_content ?? block.reasoning);
    if (typeof reasoning === "string" && reasoning !== "") message.reasoning_content = reasoning;
  }
  return message;
}
