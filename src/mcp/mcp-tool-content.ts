/**
 * An MCP `tools/call` result as the content of a tool result: text and image blocks as parts, every other
 * kind as a text rendering plus a warning (never dropped), `structuredContent` as JSON text when the server
 * sent no text beside it.
 *
 * @module
 */
import { type ContentPart, IMAGE_MEDIA_TYPES, isBase64, MAX_INLINE_DATA_CHARS } from "../core/content.ts";

/** A `tools/call` result as the server sends it (unknown fields tolerated). */
export interface McpCallToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [field: string]: unknown;
}

/** What {@link mcpToolContent} made of a result. */
export interface McpToolContent {
  /** One text part is a plain string; anything else is parts. */
  content: string | ContentPart[];
  isError: boolean;
  /** One line per block that could not be kept as it was (its text rendering is in `content`). */
  warnings: string[];
}

/** Longest text rendering of a block that has no part of its own. */
const MAX_RENDERING = 2000;

/**
 * The content parts of an MCP tool result.
 *
 * - `text` → a text part; `image` (base64 + a type every provider reads: PNG, JPEG, GIF, WebP) → an image part;
 * - `audio`, `resource_link`, `resource` and unknown kinds → a text part describing the block (an embedded
 *   text resource with its text), and a warning;
 * - `structuredContent` → its JSON as a text part when no text block came with it;
 * - `isError: true` is kept.
 *
 * @example
 * ```ts
 * mcpToolContent({ content: [{ type: "text", text: "42" }] }); // { content: "42", isError: false, warnings: [] }
 * ```
 */
export function mcpToolContent(result: McpCallToolResult, tool = "tool"): McpToolContent {
  const parts: ContentPart[] = [];
  const warnings: string[] = [];
  const blocks = Array.isArray(result?.content) ? result.content : [];
  blocks.forEach((block, index) => {
    const item = (typeof block === "object" && block !== null ? block : {}) as Record<string, unknown>;
    const type = typeof item.type === "string" ? item.type : typeof block;
    if (type === "text" && typeof item.text === "string") {
      parts.push({ type: "text", text: item.text });
      return;
    }
    if (
      type === "image" &&
      typeof item.data === "string" &&
      typeof item.mimeType === "string" &&
      // Only the image types every provider reads: an SVG part would fail the next model call.
      IMAGE_MEDIA_TYPES.includes(item.mimeType.toLowerCase()) &&
      item.data.length <= MAX_INLINE_DATA_CHARS &&
      isBase64(item.data)
    ) {
      parts.push({ type: "image", mediaType: item.mimeType.toLowerCase(), data: item.data });
      return;
    }
    parts.push({ type: "text", text: rendering(type, item) });
    warnings.push(
      `MCP ${tool} result: content[${index}] (${type}) has no part of its own; sent to the model as a text description`,
    );
  });
  if (result?.structuredContent !== undefined && !parts.some((part) => part.type === "text")) {
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  const content = parts.length === 1 && parts[0]!.type === "text" ? parts[0]!.text : parts;
  return { content: parts.length === 0 ? "" : content, isError: result?.isError === true, warnings };
}

/** A block without a part of its own, as text the model can read. */
function rendering(type: string, item: Record<string, unknown>): string {
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const size = (data: unknown) =>
    typeof data === "string" ? `, ${Math.floor((data.length * 3) / 4)} bytes not shown` : "";
  let shown: string;
  if (type === "audio" || type === "image") {
    shown = `[${type} content${text(item.mimeType) ? ` (${text(item.mimeType)})` : ""}${size(item.data)}]`;
  } else if (type === "resource_link") {
    const about = text(item.description) ? `: ${text(item.description)}` : "";
    shown = `[resource link ${text(item.name) ?? ""} <${text(item.uri) ?? ""}>${about}]`;
  } else if (type === "resource" && typeof item.resource === "object" && item.resource !== null) {
    const resource = item.resource as Record<string, unknown>;
    const head = `[resource <${text(resource.uri) ?? ""}>${text(resource.mimeType) ? ` (${text(resource.mimeType)})` : ""}`;
    shown =
      typeof resource.text === "string" ? `${head}]\n${resource.text}` : `${head}${size(resource.blob)}]`;
  } else {
    let json: string;
    try {
      json = JSON.stringify(item) ?? String(item);
    } catch {
      json = "(unreadable)";
    }
    shown = `[${type} content] ${json}`;
  }
  return shown.length > MAX_RENDERING && type !== "resource" ? `${shown.slice(0, MAX_RENDERING)}…` : shown;
}
