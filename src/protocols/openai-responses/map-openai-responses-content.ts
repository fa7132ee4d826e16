import {
  type Content,
  dataUrl,
  type FilePart,
  IMAGE_MEDIA_TYPES,
  type ImagePart,
  isImageMediaType,
} from "../../core/content.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { isBlank } from "../stored-history.ts";
import type {
  OpenAIResponsesInputContent,
  OpenAIResponsesInputFile,
  OpenAIResponsesInputImage,
} from "./openai-responses-wire.ts";

/**
 * The file types the Responses API reads as `input_file`, with the extension a file is named with when the
 * part has no `filename` (the API tells the type by the extension): PDF (text and page images), text and
 * code, rich documents, presentations and spreadsheets (text only). Any other `text/*` type is read as text
 * too, named `.txt`.
 *
 * @see https://developers.openai.com/api/docs/guides/file-inputs
 */
export const OPENAI_RESPONSES_FILE_TYPES: Readonly<Record<string, string>> = {
  "application/pdf": "pdf",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/html": "html",
  "text/xml": "xml",
  "text/csv": "csv",
  "text/tab-separated-values": "tsv",
  "text/css": "css",
  "text/javascript": "js",
  "text/x-python": "py",
  "application/json": "json",
  "application/xml": "xml",
  "application/rtf": "rtf",
  "text/rtf": "rtf",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.ms-powerpoint": "ppt",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
};

/** Where the parts of one request are checked: refusals go to `refused`, degradations to `warnings`. */
export interface OpenAIResponsesContentSink {
  warnings: string[];
  refused: ValidationIssue[];
}

/**
 * `content` as a Responses message's (or a tool output's) content: a string as it is; parts as a string
 * too when they are all text (joined: the API reads consecutive `input_text` parts as one text), else as
 * `input_text` / `input_image` / `input_file` parts in order, blank text left out. Every image or file the
 * API cannot take is refused in `sink.refused`, naming `<where>[<i>]` (`offset` is added to `i` when the
 * content carries a part of modelwire's own in front, such as an error or orphan-result header). Never
 * throws.
 */
export function openAIResponsesContentOf(
  content: Content,
  where: string,
  sink: OpenAIResponsesContentSink,
  offset = 0,
): string | OpenAIResponsesInputContent[] {
  if (typeof content === "string") return content;
  if (content.every((part) => part.type === "text")) return joinedText(content.map((part) => part.text));
  const items: OpenAIResponsesInputContent[] = [];
  content.forEach((part, position) => {
    if (part.type === "text") {
      if (!isBlank(part.text)) items.push({ type: "input_text", text: part.text });
      return;
    }
    const item = openAIResponsesPartOf(part, `${where}[${position + offset}]`, sink);
    if (item !== undefined) items.push(item);
  });
  return items;
}

/**
 * One image or file as its Responses part, or `undefined` after refusing it (in `sink.refused`, naming
 * `where`):
 *
 * - an image (or a file whose media type is an image) → `input_image` with `image_url` the https URL or a
 *   `data:` URL of the inline data, `detail: "auto"`; PNG, JPEG, WEBP and GIF only;
 * - a file → `input_file`: inline as `file_data` (a `data:` URL) with `filename` (the part's, else
 *   `file-<n>.<ext>` from its media type), or by `file_url`; only the types of
 *   {@link OPENAI_RESPONSES_FILE_TYPES} and `text/*`;
 * - a `gs://` or `s3://` URL is refused (the API fetches http(s) only): download it first
 *   (`inlineUrlParts`).
 */
export function openAIResponsesPartOf(
  part: ImagePart | FilePart,
  where: string,
  sink: OpenAIResponsesContentSink,
): OpenAIResponsesInputImage | OpenAIResponsesInputFile | undefined {
  const refuse = (message: string): undefined => {
    sink.refused.push({ path: where, message });
    return undefined;
  };
  if (part.url !== undefined && !/^https?:\/\//i.test(part.url)) {
    const scheme = /^[a-z0-9+.-]+:\/\//i.exec(part.url)?.[0] ?? "this";
    return refuse(
      `the Responses API fetches http(s) URLs only, not ${scheme} URLs: download the ${part.type} and send it inline (inlineUrlParts)`,
    );
  }
  const mediaType = part.mediaType?.toLowerCase();
  if (part.type === "image" || isImageMediaType(part.mediaType)) {
    if (mediaType !== undefined && !IMAGE_MEDIA_TYPES.includes(mediaType)) {
      return refuse(`the Responses API takes PNG, JPEG, WEBP and non-animated GIF images, not ${mediaType}`);
    }
    const imageUrl = part.url ?? dataUrl(mediaType ?? "image/png", part.data ?? "");
    return { type: "input_image", image_url: imageUrl, detail: "auto" };
  }
  const extension = mediaType === undefined ? undefined : fileExtension(mediaType);
  if (mediaType !== undefined && extension === undefined) {
    return refuse(
      `the Responses API reads PDF, text and code, Word, PowerPoint, Excel, RTF and OpenDocument text files, not ${mediaType}`,
    );
  }
  if (part.url !== undefined) {
    const item: OpenAIResponsesInputFile = { type: "input_file", file_url: part.url };
    if (part.filename !== undefined) item.filename = part.filename;
    return item;
  }
  const position = /\[(\d+)\]$/.exec(where)?.[1] ?? "0";
  return {
    type: "input_file",
    file_data: dataUrl(mediaType ?? "application/octet-stream", part.data ?? ""),
    filename: part.filename ?? `file-${position}.${extension ?? "bin"}`,
  };
}

/** The extension the API knows a media type by, or `undefined` when it does not read that type. */
function fileExtension(mediaType: string): string | undefined {
  const known = OPENAI_RESPONSES_FILE_TYPES[mediaType];
  if (known !== undefined) return known;
  return mediaType.startsWith("text/") ? "txt" : undefined;
}

/** Text parts as one text; an `Error:` marker part put in front is set off by a space. */
function joinedText(texts: readonly string[]): string {
  if (texts.length > 1 && texts[0] === "Error:" && !/^\s/.test(texts[1] ?? ""))
    return `Error: ${texts.slice(1).join("")}`;
  return texts.join("");
}
