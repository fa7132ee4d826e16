import { utf8OfBase64 } from "../../core/base64.ts";
import {
  type Content,
  dataUrl,
  type FilePart,
  IMAGE_MEDIA_TYPES,
  type ImagePart,
  isImageMediaType,
  shownUrl,
} from "../../core/content.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { isBlank } from "../stored-history.ts";
import type { OpenAIChatContentPart, OpenAIChatEndpointProfile } from "./openai-chat-wire.ts";

/** Where a conversion's warnings and refusals go, and the endpoint whose rules apply. */
export interface OpenAIChatContentContext {
  profile: OpenAIChatEndpointProfile;
  warnings: string[];
  /** Parts the target cannot take, each naming its field: the shell raises them before any request. */
  refused: ValidationIssue[];
}

const DOWNLOAD_HINT =
  "download it and send it inline (inlineUrlParts does that, with a size limit), or use a protocol that takes URLs";

/**
 * One image or file → its Chat Completions part, or `undefined` after a refusal naming `where`:
 *
 * - image, inline → `image_url` with a `data:` URL; by http(s) URL → `image_url` with the URL as it is.
 *   Hosted OpenAI takes PNG, JPEG, WEBP and GIF only (other image types are refused there; other servers
 *   get any `image/*`); `gs://` and `s3://` URLs are refused everywhere.
 * - file, inline PDF → `file` with `file_data` (a `data:` URL) and `filename` (default `document-<n>.pdf`);
 *   an inline image given as a file is an image; inline `audio/wav`, `audio/mpeg` → `input_audio`;
 *   inline `text/*` → a `text` part holding the decoded text (with a warning): Chat Completions takes PDF
 *   only as files and documents sending a text file's contents as text.
 * - refused: any file URL (Chat Completions takes none: download it, e.g. with `inlineUrlParts`), other
 *   file types (the Responses API reads them), text that is not UTF-8.
 *
 * @see https://platform.openai.com/docs/guides/images-vision
 * @see https://platform.openai.com/docs/guides/pdf-files
 */
export function openAIChatPartOf(
  part: ImagePart | FilePart,
  where: string,
  context: OpenAIChatContentContext,
): OpenAIChatContentPart | undefined {
  const refuse = (message: string): undefined => {
    context.refused.push({ path: where, message });
    return undefined;
  };
  const isImage = part.type === "image" || isImageMediaType(part.mediaType);
  if (part.url !== undefined) {
    if (part.type === "file" && !isImage)
      return refuse(`Chat Completions takes no file URLs (${shownUrl(part.url)}); ${DOWNLOAD_HINT}`);
    if (!/^https?:\/\//i.test(part.url))
      return refuse(
        `Chat Completions takes image URLs over http(s) only, not ${shownUrl(part.url)}; ${DOWNLOAD_HINT}`,
      );
    return { type: "image_url", image_url: { url: part.url } };
  }
  const mediaType = part.mediaType;
  if (isImage) {
    if (context.profile.openaiModelRules && !IMAGE_MEDIA_TYPES.includes(mediaType))
      return refuse(`OpenAI takes ${IMAGE_MEDIA_TYPES.join(", ")} images, not ${mediaType}`);
    return { type: "image_url", image_url: { url: dataUrl(mediaType, part.data) } };
  }
  if (mediaType === "application/pdf") {
    const filename = part.filename ?? `document-${positionOf(where) + 1}.pdf`;
    return { type: "file", file: { filename, file_data: dataUrl(mediaType, part.data) } };
  }
  if (mediaType === "audio/wav" || mediaType === "audio/x-wav" || mediaType === "audio/wave")
    return { type: "input_audio", input_audio: { data: part.data, format: "wav" } };
  if (mediaType === "audio/mpeg" || mediaType === "audio/mp3")
    return { type: "input_audio", input_audio: { data: part.data, format: "mp3" } };
  if (mediaType.startsWith("text/")) {
    const text = utf8OfBase64(part.data);
    if (text === undefined) {
      return refuse(`the ${mediaType} file is not UTF-8 text, which Chat Completions would take as text`);
    }
    context.warnings.push(
      `${where}: the ${mediaType} file${part.filename ? ` ${JSON.stringify(part.filename.slice(0, 120))}` : ""} is sent as a text part ` +
        "(Chat Completions takes PDF files only, and documents sending a text file's contents as text)",
    );
    return { type: "text", text };
  }
  return refuse(
    `Chat Completions takes PDF (application/pdf) files only, not ${mediaType}; the Responses API reads other document types`,
  );
}

/**
 * A user message's `content` → Chat Completions `content`: a string stays a string (so text-only callers
 * send what they always did), and so does a list of one text part; other lists become parts, blank text
 * parts left out. `undefined` when nothing is left to send. Never throws.
 */
export function openAIChatUserContentOf(
  content: Content,
  where: string,
  context: OpenAIChatContentContext,
  /** Parts `content` has before the caller's own (a header added in front): not counted in `where` paths. */
  offset = 0,
): string | OpenAIChatContentPart[] | undefined {
  if (typeof content === "string") return isBlank(content) ? undefined : content;
  const parts: OpenAIChatContentPart[] = [];
  content.forEach((part, position) => {
    if (part.type === "text") {
      if (!isBlank(part.text)) parts.push({ type: "text", text: part.text });
      return;
    }
    const mapped = openAIChatPartOf(part, `${where}[${position - offset}]`, context);
    if (mapped !== undefined) parts.push(mapped);
  });
  if (parts.length === 0) return undefined;
  const only = parts[0];
  if (parts.length === 1 && only?.type === "text") return only.text;
  return parts;
}

/** The part index at the end of a `where` path (`messages[2].content[3]` → 3). */
function positionOf(where: string): number {
  const match = /\[(\d+)\]$/.exec(where);
  return match ? Number(match[1]) : 0;
}

/** A URL or name short enough for a message (data is never in it: inline parts are not URLs here). */
