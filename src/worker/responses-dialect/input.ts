import { parseToolArguments } from "../../core/collect-stream.ts";
import type { Content, ContentPart } from "../../core/content.ts";
import type { MessageInput, Native, ToolCallInput, ToolResultInput } from "../../core/message.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { checkedPart } from "../dialect-fields.ts";
import { isEnvelope, nativeFromEnvelopes } from "../reasoning-envelope.ts";

/** What a request that needs stored state is told. */
export const NO_STORE = "the gateway stores no responses: send the whole input each turn (store: false)";

/** One input item, as validated so far (its fields are checked here). */
export type InputItem = Record<string, unknown> & { type?: string | undefined };

/** One assistant turn being gathered from consecutive output items. */
interface AssistantTurn {
  message: MessageInput & { toolCalls: ToolCallInput[] };
  text: string;
  /** Each reasoning item's `encrypted_content` and where it stood. */
  reasoning: { value: unknown; where: string }[];
}

/**
 * Input items as neutral messages. Consecutive assistant items (an assistant message, function calls,
 * reasoning) are one assistant turn, as the Responses API produced them; consecutive function call outputs
 * are one tool message.
 */
export function inputMessages(
  items: readonly InputItem[],
  route: string,
  issues: ValidationIssue[],
  warnings: string[],
): MessageInput[] {
  const messages: MessageInput[] = [];
  const names = new Map<string, string>();
  let turn: AssistantTurn | undefined;
  let results: (MessageInput & { toolResults: ToolResultInput[] }) | undefined;
  const assistant = (): AssistantTurn => {
    results = undefined;
    if (turn === undefined) {
      turn = { message: { role: "assistant", toolCalls: [] }, text: "", reasoning: [] };
      messages.push(turn.message);
    }
    return turn;
  };
  const close = () => {
    if (turn !== undefined) finishTurn(turn, route, warnings);
    turn = undefined;
  };
  for (const [index, item] of items.entries()) {
    const where = `input[${index}]`;
    const type = item.type ?? (typeof item.role === "string" ? "message" : undefined);
    switch (type) {
      case "message": {
        const role = item.role;
        if (role === "assistant") {
          assistant().text += assistantText(item.content, `${where}.content`, issues);
          break;
        }
        close();
        results = undefined;
        if (role === "system" || role === "developer") {
          messages.push({ role: "system", content: systemText(item.content, `${where}.content`, issues) });
        } else if (role === "user") {
          messages.push({ role: "user", content: contentOf(item.content, `${where}.content`, issues) });
        } else {
          issues.push({
            path: `${where}.role`,
            message: 'expected "user", "assistant", "system" or "developer"',
          });
        }
        break;
      }
      case "function_call":
      case "custom_tool_call": {
        const { call_id: callId, name } = item;
        const custom = type === "custom_tool_call";
        const field = custom ? "input" : "arguments";
        const raw = (custom ? item.input : item.arguments) ?? "";
        if (typeof callId !== "string" || callId === "")
          issues.push({ path: `${where}.call_id`, message: "expected a non-empty string" });
        if (typeof name !== "string" || name === "")
          issues.push({ path: `${where}.name`, message: "expected a non-empty string" });
        if (typeof raw !== "string") issues.push({ path: `${where}.${field}`, message: "expected string" });
        if (typeof callId !== "string" || typeof name !== "string" || typeof raw !== "string") break;
        names.set(callId, name);
        // A custom tool's input is the one string argument of the function the route was offered.
        const args = custom ? JSON.stringify({ input: raw }) : raw;
        assistant().message.toolCalls.push({
          id: callId,
          name,
          arguments: custom ? { input: raw } : parseToolArguments(args),
          argumentsText: args,
        });
        break;
      }
      case "reasoning":
        assistant().reasoning.push({ value: item.encrypted_content, where });
        break;
      case "function_call_output":
      case "custom_tool_call_output": {
        close();
        const callId = item.call_id;
        if (typeof callId !== "string" || callId === "") {
          issues.push({ path: `${where}.call_id`, message: "expected a non-empty string" });
          break;
        }
        const result: ToolResultInput = { callId, content: outputOf(item.output, `${where}.output`, issues) };
        const name = names.get(callId);
        if (name !== undefined) result.name = name;
        if (results === undefined) {
          results = { role: "tool", toolResults: [] };
          messages.push(results);
        }
        results.toolResults.push(result);
        break;
      }
      case "item_reference":
        issues.push({
          path: `${where}.type`,
          message: `${NO_STORE}: an item_reference cannot be resolved — send the item itself (the AI SDK: providerOptions.openai.store = false)`,
        });
        break;
      default:
        issues.push({
          path: `${where}.type`,
          message: `${JSON.stringify(type ?? null)} items are not supported (message, function_call, function_call_output, custom_tool_call, custom_tool_call_output and reasoning are)`,
        });
    }
  }
  close();
  return messages;
}

/**
 * The end of an assistant turn: its text, and its reasoning — the route's `native` back from a carried
 * envelope, or, for reasoning items without one, a warning that they are left out.
 */
function finishTurn(turn: AssistantTurn, route: string, warnings: string[]): void {
  if (turn.text !== "") turn.message.content = turn.text;
  let native: Native | undefined;
  for (const entry of turn.reasoning) {
    if (isEnvelope(entry.value)) native ??= nativeFromEnvelopes([entry.value], route, entry.where, warnings);
  }
  if (native !== undefined) turn.message.native = native;
  for (const entry of turn.reasoning) {
    if (isEnvelope(entry.value)) continue;
    if (typeof entry.value === "string" && entry.value !== "") {
      // Another service's encrypted reasoning (OpenAI's own) means nothing to a route of another protocol.
      warnings.push(
        `${entry.where}: encrypted reasoning the gateway did not carry does not replay on route "${route}"; left out`,
      );
    } else if (native === undefined) {
      // A summary alone is readable text, not the reasoning itself; next to an envelope it is already in it.
      warnings.push(`${entry.where}: a reasoning item without encrypted_content does not replay; left out`);
    }
  }
}

/** An assistant message's text: a string, or output_text (input_text) and refusal parts. */
function assistantText(content: unknown, where: string, issues: ValidationIssue[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    issues.push({ path: where, message: "expected a string or an array of parts" });
    return "";
  }
  let text = "";
  for (const [index, part] of content.entries()) {
    const record = (part ?? {}) as Record<string, unknown>;
    if ((record.type === "output_text" || record.type === "input_text") && typeof record.text === "string")
      text += record.text;
    else if (record.type === "refusal" && typeof record.refusal === "string") text += record.refusal;
    else
      issues.push({
        path: `${where}[${index}].type`,
        message: `an assistant message takes output_text and refusal parts, got ${JSON.stringify(record.type ?? null)}`,
      });
  }
  return text;
}

/** A system or developer message's text: a string, or input_text parts. */
function systemText(content: unknown, where: string, issues: ValidationIssue[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    issues.push({ path: where, message: "expected a string or an array of parts" });
    return "";
  }
  let text = "";
  for (const [index, part] of content.entries()) {
    const record = (part ?? {}) as Record<string, unknown>;
    if (record.type === "input_text" && typeof record.text === "string") text += record.text;
    else
      issues.push({
        path: `${where}[${index}].type`,
        message: `this message takes input_text parts only, got ${JSON.stringify(record.type ?? null)}`,
      });
  }
  return text;
}

/** A user message's content: a string, or input_text, input_image and input_file parts. */
function contentOf(content: unknown, where: string, issues: ValidationIssue[]): Content {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    issues.push({ path: where, message: "expected a string or an array of parts" });
    return "";
  }
  const parts: ContentPart[] = [];
  for (const [index, part] of content.entries()) {
    const converted = partOf((part ?? {}) as Record<string, unknown>, `${where}[${index}]`, issues);
    if (converted) parts.push(converted);
  }
  return parts;
}

/** A function call's output: a string, or input_text, input_image and input_file parts. */
function outputOf(output: unknown, where: string, issues: ValidationIssue[]): Content {
  if (output === undefined || output === null) return "";
  return contentOf(output, where, issues);
}

const NO_FILE_STORE = "the gateway has no file store: send the data inline (a base64 data: URL)";

/** One input part as a neutral part, checked by the neutral schema. */
function partOf(
  part: Record<string, unknown>,
  where: string,
  issues: ValidationIssue[],
): ContentPart | undefined {
  switch (part.type) {
    case "input_text":
    case "output_text":
      if (typeof part.text !== "string") {
        issues.push({ path: `${where}.text`, message: "expected string" });
        return undefined;
      }
      return { type: "text", text: part.text };
    case "input_image": {
      if (part.file_id !== undefined && part.file_id !== null) {
        issues.push({ path: `${where}.file_id`, message: NO_FILE_STORE });
        return undefined;
      }
      if (typeof part.image_url !== "string") {
        issues.push({ path: `${where}.image_url`, message: "expected string (an https or data: URL)" });
        return undefined;
      }
      return checkedPart(
        { type: "image", url: part.image_url },
        `${where}.image_url`,
        issues,
        `${where}.filename`,
      );
    }
    case "input_file": {
      if (part.file_id !== undefined && part.file_id !== null) {
        issues.push({ path: `${where}.file_id`, message: NO_FILE_STORE });
        return undefined;
      }
      const filename = part.filename;
      if (filename !== undefined && typeof filename !== "string") {
        issues.push({ path: `${where}.filename`, message: "expected string" });
        return undefined;
      }
      const named = filename === undefined ? {} : { filename };
      if (typeof part.file_data === "string") {
        const data = part.file_data.startsWith("data:") ? part.file_data : undefined;
        if (data === undefined) {
          issues.push({
            path: `${where}.file_data`,
            message: "expected a base64 data: URL (data:application/pdf;base64,…)",
          });
          return undefined;
        }
        return checkedPart(
          { type: "file", url: data, ...named },
          `${where}.file_data`,
          issues,
          `${where}.filename`,
        );
      }
      if (typeof part.file_url === "string")
        return checkedPart(
          { type: "file", url: part.file_url, ...named },
          `${where}.file_url`,
          issues,
          `${where}.filename`,
        );
      issues.push({ path: `${where}.file_data`, message: "required: file_data (or file_url)" });
      return undefined;
    }
    default:
      issues.push({
        path: `${where}.type`,
        message: `${JSON.stringify(part.type ?? null)} parts are not supported (input_text, input_image and input_file are)`,
      });
      return undefined;
  }
}
