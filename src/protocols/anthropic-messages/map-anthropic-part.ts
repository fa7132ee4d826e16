import { utf8OfBase64 } from "../../core/base64.ts";
import { type FilePart, IMAGE_MEDIA_TYPES, type ImagePart, isImageMediaType } from "../../core/content.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import type { AnthropicDocumentBlock, AnthropicImageBlock } from "./anthropic-wire.ts";

/** Where parts go and what the endpoint takes. */
export interface AnthropicPartContext {
  /**
   * Whether the endpoint fetches `url` sources itself: the first-party API does; Bedrock InvokeModel
   * does not (a URL part is refused there, with the advice to download it first).
   */
  urlSources: boolean;
  /** Where refusals go: each names the part (`where`). */
  refused: ValidationIssue[];
}

const PDF = "application/pdf";
const TEXT = "text/plain";
const DOWNLOAD = "download it first (inlineUrlParts) and send it inline";

/**
 * An image or file part → its Anthropic block, or `undefined` after a refusal naming `where` in
 * `context.refused`:
 *
 * - image, inline: `{ type: "image", source: { type: "base64", media_type, data } }` for the four media
 *   types the API reads (`IMAGE_MEDIA_TYPES`); any other is refused;
 * - image by URL: `source: { type: "url", url }` (https only: the API fetches it; `http:`, `gs://` and
 *   `s3://` are refused, as is a URL part whose `mediaType` names a type the API does not read);
 * - file, inline PDF: `{ type: "document", source: { type: "base64", media_type: "application/pdf" } }`;
 * - file, inline plain text: `source: { type: "text", media_type: "text/plain", data }` with the text
 *   itself (the base64 decoded as UTF-8; bytes that are not UTF-8 are refused);
 * - file by URL: a PDF (`mediaType` absent or `application/pdf`) as `source: { type: "url", url }` (https
 *   only); a plain-text URL is refused (the API reads text documents inline only);
 * - `filename` becomes the document's `title`; any other file type is refused (the API reads PDF and
 *   plain text only).
 *
 * The same blocks go in a message and in a `tool_result`'s `content` (which takes text, image and
 * document blocks).
 *
 * @see https://platform.claude.com/docs/en/build-with-claude/vision
 * @see https://platform.claude.com/docs/en/build-with-claude/pdf-support
 */
export function anthropicPartBlock(
  part: ImagePart | FilePart,
  where: string,
  context: AnthropicPartContext,
): AnthropicImageBlock | AnthropicDocumentBlock | undefined {
  const refuse = (message: string): undefined => {
    context.refused.push({ path: where, message });
    return undefined;
  };
  const mediaType = part.mediaType?.toLowerCase();

  // A file whose media type is an image is an image, as every other protocol reads it (an image block has
  // no title, so its filename has nowhere to go).
  if (part.type === "file" && isImageMediaType(part.mediaType)) {
    const image =
      part.data !== undefined
        ? { type: "image" as const, mediaType: part.mediaType!, data: part.data }
        : { type: "image" as const, url: part.url, mediaType: part.mediaType };
    return anthropicPartBlock(image, where, context);
  }

  if (part.type === "image") {
    if (mediaType !== undefined && !IMAGE_MEDIA_TYPES.includes(mediaType)) {
      return refuse(
        `Anthropic reads ${IMAGE_MEDIA_TYPES.join(", ")} images; ${mediaType} is not one of them`,
      );
    }
    if (part.data !== undefined) {
      return { type: "image", source: { type: "base64", media_type: mediaType!, data: part.data } };
    }
    const problem = urlProblem(part.url, context);
    if (problem) return refuse(`image URL ${problem}`);
    return { type: "image", source: { type: "url", url: part.url } };
  }

  const titled = (block: AnthropicDocumentBlock): AnthropicDocumentBlock =>
    part.filename === undefined ? block : { ...block, title: part.filename };
  if (part.data !== undefined) {
    if (mediaType === PDF)
      return titled({ type: "document", source: { type: "base64", media_type: PDF, data: part.data } });
    if (mediaType === TEXT) {
      const text = utf8OfBase64(part.data);
      if (text === undefined) return refuse("a text/plain file whose bytes are not UTF-8 text");
      return titled({ type: "document", source: { type: "text", media_type: TEXT, data: text } });
    }
    return refuse(`Anthropic reads PDF (${PDF}) and plain-text (${TEXT}) files; ${mediaType} is neither`);
  }
  if (mediaType === TEXT) {
    return refuse(`Anthropic takes plain-text documents inline only, not by URL; ${DOWNLOAD}`);
  }
  if (mediaType !== undefined && mediaType !== PDF) {
    return refuse(`Anthropic reads PDF (${PDF}) and plain-text (${TEXT}) files; ${mediaType} is neither`);
  }
  const problem = urlProblem(part.url, context);
  if (problem) return refuse(`document URL ${problem}`);
  return titled({ type: "document", source: { type: "url", url: part.url } });
}

/** Why a URL cannot go as a `url` source, or `undefined` when it can. */
function urlProblem(url: string, context: AnthropicPartContext): string | undefined {
  if (!context.urlSources) return `sources are not taken by this endpoint (Bedrock); ${DOWNLOAD}`;
  if (/^https:\/\//i.test(url)) return undefined;
  const scheme = /^([a-z0-9+.-]+):/i.exec(url)?.[1]?.toLowerCase() ?? "unknown";
  return `with scheme ${scheme}: Anthropic fetches https URLs only; ${DOWNLOAD}`;
}
