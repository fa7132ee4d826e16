import type { FilePart, ImagePart } from "../../core/content.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import type { GeminiPart } from "./google-gemini-wire.ts";

/** Media types read from a URL's extension when the part names none (`fileData` needs one). */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  heic: "image/heic",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  html: "text/html",
  htm: "text/html",
  csv: "text/csv",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
};

/**
 * An image or file part → its Gemini part, or `undefined` after a refusal naming `where` in `refused`:
 *
 * - inline data (any media type: images, PDF, plain text, audio, video) → `inlineData: { mimeType, data }`;
 * - by URL, `https://`, `http://` or `gs://` → `fileData: { fileUri, mimeType }` — both the Gemini API
 *   (public URLs, Files API and registered Cloud Storage URIs) and Vertex AI fetch the file themselves;
 *   the media type is the part's, else read from the URL's extension, else the part is refused (the API
 *   requires one);
 * - `s3://` URLs are refused (download the file first: `inlineUrlParts`).
 *
 * @see https://ai.google.dev/gemini-api/docs/file-input-methods
 */
export function geminiPartOf(
  part: ImagePart | FilePart,
  where: string,
  refused: ValidationIssue[],
): GeminiPart | undefined {
  if (part.data !== undefined) return { inlineData: { mimeType: part.mediaType, data: part.data } };
  const url = part.url;
  if (!/^(?:https?|gs):\/\//i.test(url)) {
    refused.push({
      path: where,
      message: "Gemini reads https://, http:// and gs:// URLs only; download the file first (inlineUrlParts)",
    });
    return undefined;
  }
  const extension = /\.([a-z0-9]{2,5})(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  const mimeType = part.mediaType ?? (extension === undefined ? undefined : BY_EXTENSION[extension]);
  if (mimeType === undefined) {
    refused.push({
      path: where,
      message: "Gemini's fileData needs a media type: give the part a mediaType",
    });
    return undefined;
  }
  return { fileData: { fileUri: url, mimeType } };
}
