/**
 * Content beyond text: a message's or a tool result's `content` is a string, or a list of parts — text,
 * images and files (PDF and plain-text documents at least) — given inline as base64 or by URL.
 *
 * Every protocol maps parts to its own form; a part a target cannot take is a `ValidationError` before
 * any request, or, where a documented degradation exists, a warning in `Response.warnings`. Nothing is
 * dropped without one of the two. URLs are passed on as URLs where the API takes them; downloading them
 * is the caller's choice ({@link inlineUrlParts}), never automatic.
 *
 * @module
 */
import { bytesToBase64 } from "./base64.ts";

/** Text. */
export interface TextPart {
  type: "text";
  text: string;
}

/**
 * An image: inline (`mediaType` + base64 `data`) or by `url` (https, or a `data:` URL, which is read
 * as inline). Media types every protocol takes: `image/png`, `image/jpeg`, `image/gif`, `image/webp`.
 */
export type ImagePart =
  | { type: "image"; mediaType: string; data: string; url?: undefined }
  | { type: "image"; url: string; mediaType?: string | undefined; data?: undefined };

/**
 * A file (a document): inline (`mediaType` + base64 `data`) or by `url`, with an optional `filename`
 * (some APIs show it to the model, Bedrock requires a name). PDF (`application/pdf`) and plain text
 * (`text/plain`) are taken everywhere; other types where the target says so.
 */
export type FilePart =
  | { type: "file"; mediaType: string; data: string; url?: undefined; filename?: string | undefined }
  | {
      type: "file";
      url: string;
      mediaType?: string | undefined;
      data?: undefined;
      filename?: string | undefined;
    };

/** One part of a message's or a tool result's content. */
export type ContentPart = TextPart | ImagePart | FilePart;

/** What `content` holds: a string (plain text), or parts. */
export type Content = string | ContentPart[];

/** Image media types every protocol takes. */
export const IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Largest inline part accepted, in base64 characters (about 24 MiB of bytes). */
export const MAX_INLINE_DATA_CHARS = 32 * 1024 * 1024;

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const DATA_URL = /^data:([^;,]+)(;[^,]*)?,(.*)$/s;

/** Whether `code` is a character of the standard base64 alphabet (A-Z a-z 0-9 + /). */
function isBase64Code(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47
  );
}

/**
 * Whether `text` is standard base64 (padded, no whitespace, no URL-safe alphabet). One pass over the
 * characters: a regular expression over megabytes of data runs out of backtracking stack.
 */
export function isBase64(text: string): boolean {
  const length = text.length;
  if (length % 4 !== 0) return false;
  let padding = 0;
  if (length > 0 && text.charCodeAt(length - 1) === 61) padding = text.charCodeAt(length - 2) === 61 ? 2 : 1;
  for (let at = 0; at < length - padding; at++) if (!isBase64Code(text.charCodeAt(at))) return false;
  return true;
}

/**
 * A `data:` URL's media type and base64 data, or `undefined` when `url` is not a base64 `data:` URL.
 *
 * @example
 * ```ts
 * parseDataUrl("data:image/png;base64,iVBORw0KGgo="); // { mediaType: "image/png", data: "iVBORw0KGgo=" }
 * ```
 */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  if (!match || !/;base64$/i.test(match[2] ?? "")) return undefined;
  return { mediaType: match[1]!.toLowerCase(), data: match[3]! };
}

/**
 * `url` as an error or a warning may show it: scheme, host and path, without user info, query or fragment
 * (a pre-signed URL carries its credential there), clipped to 120 characters and quoted.
 */
export function shownUrl(url: string): string {
  let shown: string;
  try {
    const parsed = new URL(url);
    shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
    if (parsed.search !== "" || parsed.hash !== "") shown += "?…";
  } catch {
    shown = `${/^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? ""}…`;
  }
  return JSON.stringify(shown.length > 120 ? `${shown.slice(0, 117)}...` : shown);
}

/** A base64 `data:` URL of inline data. */
export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** What is wrong with a value that should be a part: the field (relative to the part) and why. */
export interface PartIssue {
  path: (string | number)[];
  message: string;
}

const IMAGE_MEDIA_MESSAGE = "an image media type (image/png, image/jpeg, …)";
const MEDIA_MESSAGE = "a media type such as image/png or application/pdf";
const BASE64_MESSAGE = "not standard base64 (A-Z a-z 0-9 + /, padded with =, no whitespace)";
const URL_MESSAGE = "an http(s) URL (or gs:// / s3:// for the clouds that read those), or a base64 data: URL";
const FIELDS: Record<string, readonly string[]> = {
  text: ["type", "text"],
  image: ["type", "mediaType", "data", "url"],
  file: ["type", "mediaType", "data", "url", "filename"],
};

function isPartUrl(value: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(value) || /^gs:\/\/[^\s]+$/.test(value) || /^s3:\/\/[^\s]+$/.test(value);
}

/**
 * The rule of a valid part, in one place (the zod schemas of `content-schema.ts` and the stored-history
 * reader both call it): `value` as a {@link ContentPart} — a `data:` URL given as `url` read as inline data
 * first, so every protocol sees one form — or the first thing wrong with it, naming the field. Never throws.
 *
 * @example
 * ```ts
 * checkContentPart({ type: "image", mediaType: "png", data: "…" }); // { issue: { path: ["mediaType"], … } }
 * ```
 */
export function checkContentPart(value: unknown): { part: ContentPart } | { issue: PartIssue } {
  try {
    return checkPart(value);
  } catch (error) {
    // A value no reader can read (a getter that throws, a revoked Proxy): refused, never a throw.
    return {
      issue: { path: [], message: `could not be read (${(error as Error)?.message ?? String(error)})` },
    };
  }
}

function checkPart(value: unknown): { part: ContentPart } | { issue: PartIssue } {
  const fail = (path: (string | number)[], message: string) => ({ issue: { path, message } });
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return fail([], 'expected a part object ({ type: "text" | "image" | "file", … })');
  }
  const part = inlineDataUrl(value) as Record<string, unknown>;
  const type = part.type;
  if (type !== "text" && type !== "image" && type !== "file") {
    return fail(["type"], 'expected "text", "image" or "file"');
  }
  const allowed = FIELDS[type]!;
  for (const key of Object.keys(part)) {
    if (!allowed.includes(key)) return fail([key], `not a field of a ${type} part`);
  }
  if (type === "text") {
    return typeof part.text === "string"
      ? { part: { type, text: part.text } }
      : fail(["text"], "expected a string");
  }
  const { mediaType, data, url, filename } = part;
  if (mediaType !== undefined && (typeof mediaType !== "string" || !MEDIA_TYPE.test(mediaType))) {
    return fail(["mediaType"], MEDIA_MESSAGE);
  }
  if (filename !== undefined) {
    if (type !== "file") return fail(["filename"], "not a field of an image part");
    if (typeof filename !== "string" || filename.length < 1 || filename.length > 512) {
      return fail(["filename"], "a string of 1 to 512 characters");
    }
  }
  const named = filename === undefined ? {} : { filename: filename as string };
  if (data !== undefined) {
    if (url !== undefined) return fail(["url"], "a part is inline (data) or by URL, not both");
    if (mediaType === undefined) return fail(["mediaType"], `${MEDIA_MESSAGE} (inline data needs one)`);
    if (type === "image" && !(mediaType as string).startsWith("image/")) {
      return fail(["mediaType"], IMAGE_MEDIA_MESSAGE);
    }
    if (typeof data !== "string") return fail(["data"], "expected a base64 string");
    if (data.length > MAX_INLINE_DATA_CHARS) {
      return fail(["data"], `at most ${MAX_INLINE_DATA_CHARS} base64 characters`);
    }
    if (!isBase64(data)) return fail(["data"], BASE64_MESSAGE);
    return { part: { type, mediaType: mediaType as string, data, ...named } as ContentPart };
  }
  if (url === undefined) return fail(["data"], "inline data (with mediaType) or a url is required");
  if (typeof url !== "string" || !isPartUrl(url)) return fail(["url"], URL_MESSAGE);
  const typed = mediaType === undefined ? {} : { mediaType: mediaType as string };
  return { part: { type, url, ...typed, ...named } as ContentPart };
}

/** `{ url: "data:…;base64,…" }` → `{ mediaType, data }`; anything else as it is. */
function inlineDataUrl(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const part = value as Record<string, unknown>;
  if ((part.type !== "image" && part.type !== "file") || typeof part.url !== "string") return value;
  const inline = parseDataUrl(part.url);
  if (!inline) return value;
  const { url: _url, ...rest } = part;
  return { ...rest, mediaType: part.mediaType ?? inline.mediaType, data: inline.data };
}

/** The text of `content`: a string as it is, the text parts joined; images and files contribute nothing. */
export function contentText(content: Content | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  let text = "";
  for (const part of content) if (part.type === "text") text += part.text;
  return text;
}

/** `content` as parts: a non-empty string is one text part. */
export function contentParts(content: Content | undefined): ContentPart[] {
  if (content === undefined || content === "") return [];
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * Whether a media type is an image's: the one rule by which every protocol reads a file of such a type as an
 * image (a PNG given as a file goes as an image block).
 */
export function isImageMediaType(mediaType: string | undefined): boolean {
  return mediaType?.toLowerCase().startsWith("image/") ?? false;
}

/** Whether `content` holds an image or a file. */
export function hasMedia(content: Content | undefined): boolean {
  return Array.isArray(content) && content.some((part) => part.type !== "text");
}

/** Options of {@link inlineUrlParts}. */
export interface InlineUrlOptions {
  /** The `fetch` to download with (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Largest download accepted, in bytes (default 20 MiB); a larger one is an error naming the part. */
  maxBytes?: number;
  /** Which parts to download (default: every image and file part given by http(s) URL). */
  filter?: (part: ImagePart | FilePart) => boolean;
  signal?: AbortSignal;
}

/**
 * Downloads the URL parts of `content` and returns the content with them inline (base64, the media type
 * from the response unless the part named one). For targets that take no URL (OpenAI Chat files, Bedrock,
 * the Gemini API): an explicit step of the caller's, never done behind its back — a gateway that did it
 * for its clients would fetch any address they named.
 *
 * @example
 * ```ts
 * const content = await inlineUrlParts([{ type: "text", text: "Summarise" }, { type: "file", url: pdfUrl }]);
 * await bedrockProvider.complete([{ role: "user", content }]);
 * ```
 */
export async function inlineUrlParts(content: Content, options: InlineUrlOptions = {}): Promise<Content> {
  if (typeof content === "string") return content;
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxBytes = options.maxBytes ?? 20 * 1024 * 1024;
  const out: ContentPart[] = [];
  for (const [index, part] of content.entries()) {
    if (part.type === "text" || part.url === undefined || !/^https?:\/\//i.test(part.url)) {
      out.push(part);
      continue;
    }
    if (options.filter && !options.filter(part)) {
      out.push(part);
      continue;
    }
    const response = await doFetch(part.url, options.signal ? { signal: options.signal } : {});
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`content[${index}]: downloading ${shownUrl(part.url)} answered ${response.status}`);
    }
    const bytes = await readBounded(response, maxBytes, index);
    const mediaType =
      part.mediaType ?? response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
    if (!MEDIA_TYPE.test(mediaType)) {
      throw new Error(
        `content[${index}]: ${shownUrl(part.url)} has no media type; give the part a mediaType`,
      );
    }
    const data = bytesToBase64(bytes);
    out.push(
      part.type === "image"
        ? { type: "image", mediaType, data }
        : {
            type: "file",
            mediaType,
            data,
            ...(part.filename === undefined ? {} : { filename: part.filename }),
          },
    );
  }
  return out;
}

async function readBounded(
  response: globalThis.Response,
  maxBytes: number,
  index: number,
): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`content[${index}]: the download is larger than ${maxBytes} bytes (maxBytes)`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
