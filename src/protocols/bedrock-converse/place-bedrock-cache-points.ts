import type { CacheOption } from "../../core/call-options.ts";
import { autoCacheTail } from "../cache-tail.ts";
import type { ConverseBlock, ConverseCachePoint, ConverseRequestBody } from "./bedrock-converse-wire.ts";
import type { BedrockModelTraits } from "./bedrock-model-traits.ts";

/** Bedrock accepts at most four cache checkpoints per request. */
export const MAX_CACHE_POINTS = 4;

/**
 * Adds `cachePoint` blocks to a Converse body (in place) and returns warnings.
 *
 * - `"off"` (or undefined): none.
 * - `"auto"` or `{ ttl }`: after the tools (Claude only), after the system prompt, and at the end of the
 *   conversation's stable prefix — the last message and the user turn before it, so the next call (which
 *   appends to this history) reads what this one wrote. At most four.
 * - `{ breakpoints: [...] }`: exactly where asked (`"tools"`, `"system"`, or `{ message: i }` for the end of
 *   the request's `messages[i]`), up to four.
 *
 * Models that take no cache points (anything but Claude and Nova) get none; an explicit request for them
 * is reported. A checkpoint never directly follows a reasoning block (replayed byte for byte) and is
 * never placed in an empty message. Bedrock rejects one right after a `document` (or `video`) block, so at
 * the end of a message that ends with documents it goes before them.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html
 */
export function placeBedrockCachePoints(
  body: ConverseRequestBody,
  cache: CacheOption | undefined,
  traits: BedrockModelTraits,
  explicit: boolean,
): string[] {
  const warnings: string[] = [];
  if (cache === undefined || cache === "off") return warnings;
  if (!traits.cachePoints) {
    if (explicit) warnings.push("this model takes no prompt-cache checkpoints; cache option ignored");
    return warnings;
  }
  const ttl = typeof cache === "object" ? cache.ttl : undefined;
  const point = (): { cachePoint: ConverseCachePoint } => ({
    cachePoint: ttl ? { type: "default", ttl } : { type: "default" },
  });
  let placed = 0;
  const room = (label: string): boolean => {
    if (placed < MAX_CACHE_POINTS) return true;
    warnings.push(`cache checkpoint at ${label} left out: Bedrock allows ${MAX_CACHE_POINTS}`);
    return false;
  };
  const atTools = (quiet: boolean): void => {
    const tools = body.toolConfig?.tools;
    if (!tools?.length) {
      if (!quiet) warnings.push("cache checkpoint at tools: nothing there to mark");
      return;
    }
    if (!traits.toolCachePoint) {
      if (!quiet) warnings.push("cache checkpoint at tools: this model takes none there; left out");
      return;
    }
    if (!room("tools")) return;
    tools.push(point());
    placed++;
  };
  const atSystem = (quiet: boolean): void => {
    if (!body.system?.length) {
      if (!quiet) warnings.push("cache checkpoint at system: nothing there to mark");
      return;
    }
    if (!room("system")) return;
    body.system.push(point());
    placed++;
  };
  const atMessage = (index: number, quiet: boolean): void => {
    const message = body.messages[index];
    const last: ConverseBlock | undefined = message?.content.at(-1);
    if (!message || last === undefined || "reasoningContent" in last || "cachePoint" in last) {
      if (!quiet) warnings.push(`cache checkpoint at messages[${index}]: nothing there to mark`);
      return;
    }
    // Bedrock rejects a checkpoint right after a document or a video (not after an image): it goes
    // before the documents that end the message, which then are not cached.
    let at = message.content.length;
    while (at > 0 && isDocumentLike(message.content[at - 1]!)) at--;
    const before = message.content[at - 1];
    if (before === undefined || "reasoningContent" in before || "cachePoint" in before) {
      if (!quiet) {
        warnings.push(
          `cache checkpoint at messages[${index}]: Bedrock takes none right after a document, and nothing comes before it; left out`,
        );
      }
      return;
    }
    if (!room(`messages[${index}]`)) return;
    // A new array: the blocks may be replayed native blocks shared with the caller's history.
    message.content = [...message.content.slice(0, at), point(), ...message.content.slice(at)];
    if (at < message.content.length - 1 && !quiet) {
      warnings.push(
        `cache checkpoint at messages[${index}]: placed before the documents that end the message (Bedrock takes none right after a document)`,
      );
    }
    placed++;
  };

  if (typeof cache === "object" && cache.breakpoints) {
    for (const breakpoint of cache.breakpoints) {
      if (breakpoint === "tools") atTools(false);
      else if (breakpoint === "system") atSystem(false);
      else atMessage(breakpoint.message, false);
    }
    return warnings;
  }

  atTools(true);
  atSystem(true);
  for (const index of autoCacheTail(body.messages)) if (placed < MAX_CACHE_POINTS) atMessage(index, true);
  return warnings;
}

/** A block Bedrock takes no checkpoint right after. */
function isDocumentLike(block: ConverseBlock): boolean {
  return "document" in block || "video" in block;
}
