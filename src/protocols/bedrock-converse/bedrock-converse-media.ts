/**
 * Images and files as Converse `image` / `document` blocks, with the rules Bedrock enforces: the formats
 * it lists (anything else is refused before any request), raw bytes (base64 in JSON) or an `s3Location`
 * for `s3://` URLs (an https URL is refused: Converse fetches nothing, the caller downloads it with
 * `inlineUrlParts`), and a document `name` made of the characters Bedrock allows, unique in the request.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html
 * @module
 */
import { type FilePart, type ImagePart, isImageMediaType } from "../../core/content.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import type { ConverseBlock, ConverseMediaSource } from "./bedrock-converse-wire.ts";

/** Image media type → Converse `image.format`. */
export const CONVERSE_IMAGE_FORMATS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** Document media type → Converse `document.format`. */
export const CONVERSE_DOCUMENT_FORMATS: Readonly<Record<string, string>> = {
  "application/pdf": "pdf",
  "text/csv": "csv",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "text/html": "html",
  "text/plain": "txt",
  "text/markdown": "md",
};

/** File-name extensions of `s3://` URLs given without a media type. */
const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  png: "png",
  jpg: "jpeg",
  jpeg: "jpeg",
  gif: "gif",
  webp: "webp",
};
const DOCUMENT_EXTENSIONS: Readonly<Record<string, string>> = {
  pdf: "pdf",
  csv: "csv",
  doc: "doc",
  docx: "docx",
  xls: "xls",
  xlsx: "xlsx",
  html: "html",
  htm: "html",
  txt: "txt",
  md: "md",
};

/** Longest document name Bedrock accepts. */
export const MAX_DOCUMENT_NAME_LENGTH = 200;

/** What writing media blocks for one request needs: the names taken so far, and where issues go. */
export interface ConverseMediaContext {
  warnings: string[];
  refused: ValidationIssue[];
  /** Document names already used in this request (Bedrock rejects two documents of one name). */
  documentNames: Set<string>;
  /** Documents written so far, for the default names `Document 1`, `Document 2`, … */
  documentCount: number;
}

/** A fresh context for one request. */
export function converseMediaContext(warnings: string[]): ConverseMediaContext {
  return { warnings, refused: [], documentNames: new Set(), documentCount: 0 };
}

/**
 * The `image` or `document` block of a part (a file whose media type is an image is an image), or
 * `undefined` after a refusal naming `where`: a media type outside Bedrock's lists, an http(s) or gs://
 * URL, an `s3://` URL whose format cannot be told.
 */
export function converseMediaBlock(
  part: ImagePart | FilePart,
  where: string,
  context: ConverseMediaContext,
): ConverseBlock | undefined {
  const refuse = (message: string): undefined => {
    context.refused.push({ path: where, message });
    return undefined;
  };
  const mediaType = part.mediaType?.toLowerCase();
  const asImage = part.type === "image" || isImageMediaType(part.mediaType);
  let source: ConverseMediaSource;
  let extension: string | undefined;
  if (part.data !== undefined) source = { bytes: part.data };
  else {
    const url = part.url;
    if (!url.startsWith("s3://")) {
      return refuse(
        `Bedrock Converse takes ${asImage ? "images" : "documents"} as bytes or s3:// locations, not ${url.split(":")[0]} URLs; download it first (inlineUrlParts) or upload it to S3`,
      );
    }
    source = { s3Location: { uri: url } };
    extension = /\.([a-z0-9]+)$/i.exec(url.split(/[?#]/)[0]!)?.[1]?.toLowerCase();
  }
  if (asImage) {
    const format =
      mediaType !== undefined ? CONVERSE_IMAGE_FORMATS[mediaType] : extension && IMAGE_EXTENSIONS[extension];
    if (!format) {
      return refuse(
        mediaType !== undefined
          ? `Bedrock Converse takes png, jpeg, gif and webp images, not ${mediaType}`
          : "the image's format cannot be told from its URL; give the part a mediaType",
      );
    }
    return { image: { format, source } };
  }
  const format =
    mediaType !== undefined
      ? CONVERSE_DOCUMENT_FORMATS[mediaType]
      : extension && DOCUMENT_EXTENSIONS[extension];
  if (!format) {
    return refuse(
      mediaType !== undefined
        ? `Bedrock Converse takes documents as pdf, csv, doc, docx, xls, xlsx, html, txt or md, not ${mediaType}`
        : "the document's format cannot be told from its URL; give the part a mediaType",
    );
  }
  const name = documentName(part.filename, where, context);
  return { document: { format, name, source } };
}

/**
 * A document name Bedrock accepts (alphanumerics, single whitespace, hyphens, parentheses, square
 * brackets; 1 to 200 characters) and unique in the request: the part's `filename` without its extension,
 * other characters replaced by `-`, whitespace runs made one space; `Document N` when there is no
 * filename. A name changed beyond dropping the extension (or made unique with ` (2)`) is reported.
 */
export function documentName(
  filename: string | undefined,
  where: string,
  context: ConverseMediaContext,
): string {
  context.documentCount++;
  let name: string;
  if (filename === undefined) {
    name = `Document ${context.documentCount}`;
    for (let n = context.documentCount + 1; context.documentNames.has(name); n++) name = `Document ${n}`;
    context.documentNames.add(name);
    return name;
  }
  const stem = filename.replace(/\.[A-Za-z0-9]{1,8}$/, "");
  const cleaned = stem
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, "-")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_DOCUMENT_NAME_LENGTH)
    .trim();
  name = cleaned === "" ? `Document ${context.documentCount}` : cleaned;
  if (context.documentNames.has(name)) {
    const base = name.slice(0, MAX_DOCUMENT_NAME_LENGTH - 6);
    for (let n = 2; context.documentNames.has(name); n++) name = `${base} (${n})`;
  }
  context.documentNames.add(name);
  if (name !== stem) {
    context.warnings.push(
      `${where}: document name ${JSON.stringify(filename)} sent as ${JSON.stringify(name)} (Bedrock allows letters, digits, single spaces, hyphens, parentheses and square brackets, unique names, at most ${MAX_DOCUMENT_NAME_LENGTH} characters)`,
    );
  }
  return name;
}

/** The media kind of a Converse block, when it is one. */
export function mediaKind(block: ConverseBlock): "image" | "document" | "video" | undefined {
  if ("image" in block) return "image";
  if ("document" in block) return "document";
  if ("video" in block) return "video";
  return undefined;
}
