/**
 * One loader for every recorded fixture in `test/fixtures/` (copied byte for byte from the upstream
 * recordings; see its README.md for the source of each file): VCR cassettes (pydantic-ai and vcrpy styles), vercel/ai `*.chunks.txt`, raw SSE bodies and
 * the AWS event-stream codec test vectors.
 *
 * Every recorded HTTP response comes out as an interaction whose `body` is the exact response body bytes
 * (after undoing gzip, as `fetch` would). Where the recording did not keep the bytes (pydantic-ai's
 * `parsed_body`, vercel's one-JSON-per-line chunks) the body is rebuilt and `decoded` is `true`.
 *
 * The folder is found relative to this file (`../fixtures/`), so the tests need nothing outside the
 * repository. Node-only: it reads files.
 *
 * @example
 * ```ts
 * const fixture = await loadFixture("anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml");
 * const [first] = fixture.interactions;
 * for await (const event of readSse(byteStream(first!.body, [7]))) console.log(event.event);
 * ```
 *
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

/** The container format of a fixture file. */
export type FixtureFormat =
  /** VCR cassette YAML (pydantic-ai or vcrpy style): `interactions[].response.body.string`. */
  | "vcr-yaml"
  /** vercel/ai `*.chunks.txt`: one JSON value per line. */
  | "chunks-jsonl"
  /** The exact HTTP body of one SSE response (`*.sse`, other `*.txt`). */
  | "raw-sse"
  /** aws-sdk-go event-stream codec test vector: `encoded/` bytes or `decoded/` expectation. */
  | "eventstream-vector";

/**
 * What a body is, sniffed from its bytes (not from `content-type`: some cassettes strip headers).
 *
 * - `sse`: text whose first non-blank line is an SSE field or comment and that has a `data:`/`event:` line.
 * - `eventstream`: starts with `0x00 0x00` (the high bytes of an event-stream frame's total length).
 * - `json`: parses as one JSON value.
 * - `jsonl`: several lines, each a JSON value (vercel's decoded Bedrock events).
 * - `text`: anything else that is not empty.
 * - `empty`: zero bytes (e.g. HTTP 204).
 */
export type BodyKind = "sse" | "eventstream" | "json" | "jsonl" | "text" | "empty";

/** The request that produced a recorded response, as far as the recording kept it. */
export interface FixtureRequest {
  method?: string;
  uri?: string;
  /** `parsed_body` when the cassette has it (decoded JSON), else the recorded `body` as stored (string, bytes or null). */
  body?: unknown;
  /** Header names lower-cased; repeated values joined with `, `; `!!binary` values decoded as UTF-8. */
  headers: Record<string, string>;
}

/** One recorded response (one per HTTP exchange in a cassette; one per file otherwise). */
export interface FixtureInteraction {
  /** Position in the file (0-based). */
  index: number;
  request?: FixtureRequest;
  /** HTTP status code, when recorded. */
  status?: number;
  /** Response headers as recorded: names lower-cased, repeated values joined with `, `. Empty if stripped. */
  headers: Record<string, string>;
  /** The response body bytes (decompressed when it was stored gzip-compressed). */
  body: Uint8Array;
  bodyKind: BodyKind;
  /**
   * True when `body` is not the bytes that came over the wire but was rebuilt from a decoded form:
   * `parsed_body` re-serialised with `JSON.stringify`, chunks.txt lines re-wrapped as `data: <line>\n\n`,
   * vercel's decoded Bedrock events (framing removed), or a `decoded/` event-stream test vector.
   */
  decoded: boolean;
  /** Set when the stored body was gzip-compressed; `body` holds the decompressed bytes. */
  contentEncoding?: "gzip";
  /** chunks.txt only: the raw lines, exactly as in the file (without line terminators). */
  lines?: string[];
  /** chunks.txt only: each line parsed as JSON (for Bedrock: `{ "<eventType>": {...} }` objects). */
  events?: unknown[];
  /** The decoded JSON value, when the body is JSON (`parsed_body`, or a `decoded/` vector). */
  json?: unknown;
}

/** A header in an aws-sdk-go `decoded/positive/*` vector (`value` as Go's JSON encoder wrote it). */
export interface EventStreamVectorHeader {
  name: string;
  /** Event-stream header type code: 0 true, 1 false, 2 byte, 3 int16, 4 int32, 5 int64, 6 bytes, 7 string, 8 timestamp, 9 uuid. */
  type: number;
  /** Booleans and integers as JSON values; bytes, string and uuid values as base64. */
  value: unknown;
}

/** The expected decoding of a positive vector. CRCs are signed int32 as Go printed them: compare with `>>> 0`. */
export interface EventStreamVectorMessage {
  total_length: number;
  headers_length: number;
  prelude_crc: number;
  headers: EventStreamVectorHeader[];
  /** base64 */
  payload: string;
  message_crc: number;
}

/** An aws-sdk-go event-stream test vector: the encoded bytes together with their expected decoding. */
export interface EventStreamVector {
  name: string;
  polarity: "positive" | "negative";
  /** The binary message (`encoded/<polarity>/<name>`). */
  encoded: Uint8Array;
  /** Positive: the decoded message. Negative: the error text the decoder must report (e.g. "Prelude checksum mismatch"). */
  expected: { message: EventStreamVectorMessage } | { error: string };
}

/** A loaded fixture file. */
export interface Fixture {
  /** Path relative to the fixtures folder, with `/` separators. */
  path: string;
  format: FixtureFormat;
  /** Upstream project short name (`pydantic-ai`, `openllmetry`, `vercel-ai`, `anthropic-sdk-ts`, `aws-sdk-go`). */
  source: string;
  interactions: FixtureInteraction[];
  /** Event-stream test vectors only: both halves of the vector, whichever half was loaded. */
  vector?: EventStreamVector;
}

/** A fixture file found by {@link listFixtures}. */
export interface FixtureInfo {
  /** Path relative to the fixtures folder, with `/` separators. */
  path: string;
  /** Absolute path on disk. */
  absolutePath: string;
  /** Top-level folder: `anthropic`, `openai-chat`, `openai-responses` or `bedrock`. */
  folder: string;
  format: FixtureFormat;
  /** File size in bytes. */
  size: number;
}

/** One SSE response body from the fixtures; see {@link sseFixtures}. */
export interface SseFixture {
  /** `<path>#<interaction index>`: unique, stable, readable in test names. */
  name: string;
  path: string;
  interaction: number;
  body: Uint8Array;
  /** True for bodies rebuilt from chunks.txt lines (tokenising these tests less than real bodies). */
  decoded: boolean;
}

const VECTOR_FOLDER = "aws-eventstream-test-vectors";
const IGNORED_FILES = new Set(["README.md"]);
/** Folders next to the recordings that hold no recordings (the upstream license texts). */
const IGNORED_FOLDERS = new Set(["LICENSES"]);

const textDecoder = new TextDecoder();
const textEncoder = new TextEncoder();

/** Absolute path of the fixtures folder, `test/fixtures/` in this repository. */
export function fixturesRoot(): string {
  return fileURLToPath(new URL("../fixtures/", import.meta.url));
}

/** The format of a fixture from its relative path, or `undefined` for files that are not fixtures. */
export function fixtureFormat(relativePath: string): FixtureFormat | undefined {
  const path = relativePath.split(sep).join("/");
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (IGNORED_FILES.has(name) || name.startsWith(".")) return undefined;
  if (path.split("/").some((part) => IGNORED_FOLDERS.has(part))) return undefined;
  if (path.split("/").includes(VECTOR_FOLDER)) return "eventstream-vector";
  if (name.endsWith(".yaml") || name.endsWith(".yml")) return "vcr-yaml";
  if (name.endsWith(".chunks.txt")) return "chunks-jsonl";
  if (name.endsWith(".sse") || name.endsWith(".txt")) return "raw-sse";
  return undefined;
}

/**
 * Every fixture file (README.md and unknown files excluded), sorted by path.
 *
 * @param folder only files under this relative folder, e.g. `"anthropic"` or `"bedrock/aws-eventstream-test-vectors"`
 */
export function listFixtures(folder?: string): FixtureInfo[] {
  const root = fixturesRoot();
  const start = folder === undefined ? root : join(root, folder);
  const out: FixtureInfo[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const absolutePath = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(absolutePath);
        continue;
      }
      if (!entry.isFile()) continue;
      const path = relative(root, absolutePath).split(sep).join("/");
      const format = fixtureFormat(path);
      if (format === undefined) continue;
      out.push({
        path,
        absolutePath,
        folder: path.split("/")[0] ?? "",
        format,
        size: statSync(absolutePath).size,
      });
    }
  };
  walk(start);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Load one fixture file.
 *
 * @param relativePath path relative to the fixtures folder (`/` separators), as in the README's tables
 * @throws if the file is missing, is not a fixture, or does not parse as its format says
 */
export async function loadFixture(relativePath: string): Promise<Fixture> {
  if (isAbsolute(relativePath))
    throw new Error(`loadFixture takes a path relative to the fixtures folder: ${relativePath}`);
  const path = relativePath.split(sep).join("/");
  const format = fixtureFormat(path);
  if (format === undefined) throw new Error(`not a fixture file: ${path}`);
  const bytes = new Uint8Array(await readFile(join(fixturesRoot(), path)));
  switch (format) {
    case "vcr-yaml":
      return parseCassette(textDecoder.decode(bytes), path);
    case "chunks-jsonl":
      return parseChunks(bytes, path);
    case "raw-sse":
      return {
        path,
        format,
        source: sourceOf(path),
        interactions: [
          { index: 0, headers: {}, body: bytes, bodyKind: sniffBodyKind(bytes), decoded: false },
        ],
      };
    case "eventstream-vector":
      return loadVector(path, bytes);
  }
}

/** Every fixture, loaded (in {@link listFixtures} order). */
export async function loadAllFixtures(folder?: string): Promise<Fixture[]> {
  return Promise.all(listFixtures(folder).map((info) => loadFixture(info.path)));
}

/**
 * Every SSE response body in the fixtures: every interaction of every file whose body sniffs as SSE,
 * including chunks.txt lines re-wrapped as `data:` events (`decoded: true`) unless `includeDecoded` is false.
 */
export async function sseFixtures(options: { includeDecoded?: boolean } = {}): Promise<SseFixture[]> {
  const includeDecoded = options.includeDecoded ?? true;
  const out: SseFixture[] = [];
  for (const fixture of await loadAllFixtures()) {
    for (const interaction of fixture.interactions) {
      if (interaction.bodyKind !== "sse") continue;
      if (interaction.decoded && !includeDecoded) continue;
      out.push({
        name: `${fixture.path}#${interaction.index}`,
        path: fixture.path,
        interaction: interaction.index,
        body: interaction.body,
        decoded: interaction.decoded,
      });
    }
  }
  return out;
}

/**
 * Parse a VCR cassette (pydantic-ai or vcrpy style) from its YAML text. Exposed so tests can feed
 * cassettes that the shared folder lacks (e.g. a gzip-compressed body).
 */
export async function parseCassette(yamlText: string, path = "<inline>"): Promise<Fixture> {
  const doc: unknown = parseYaml(yamlText);
  const interactions = isRecord(doc) ? doc.interactions : undefined;
  if (!Array.isArray(interactions)) throw new Error(`${path}: no interactions[] in cassette`);
  const out: FixtureInteraction[] = [];
  for (const [index, raw] of interactions.entries()) {
    if (!isRecord(raw) || !isRecord(raw.response))
      throw new Error(`${path}: interaction ${index} has no response`);
    out.push(await cassetteInteraction(raw, raw.response, index, path));
  }
  return { path, format: "vcr-yaml", source: sourceOf(path), interactions: out };
}

/** Sniff what a body is from its bytes; see {@link BodyKind}. */
export function sniffBodyKind(body: Uint8Array): BodyKind {
  if (body.length === 0) return "empty";
  if (body[0] === 0x00 && body[1] === 0x00) return "eventstream";
  const text = textDecoder.decode(body);
  if (looksLikeSse(text)) return "sse";
  try {
    JSON.parse(text);
    return "json";
  } catch {
    // not one JSON value
  }
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (lines.length > 1 && lines.every(isJson)) return "jsonl";
  return "text";
}

/** True when `bytes` starts with the gzip magic number. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Decompress gzip bytes with the Web `DecompressionStream`. */
export async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const source = new Blob([bytes.slice()]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(source).arrayBuffer());
}

// ---------------------------------------------------------------------------------------------------

async function cassetteInteraction(
  raw: Record<string, unknown>,
  response: Record<string, unknown>,
  index: number,
  path: string,
): Promise<FixtureInteraction> {
  const headers = headerRecord(response.headers);
  const status = isRecord(response.status) ? response.status.code : response.status;
  const interaction: FixtureInteraction = {
    index,
    headers,
    body: new Uint8Array(0),
    bodyKind: "empty",
    decoded: false,
  };
  if (typeof status === "number") interaction.status = status;
  if (isRecord(raw.request)) interaction.request = cassetteRequest(raw.request);

  // vcrpy: `body: { string: ... }`; very old cassettes: `body: <scalar>`.
  const storedBody = isRecord(response.body) ? response.body.string : response.body;
  if (storedBody instanceof Uint8Array) {
    // yaml gives a Node Buffer (possibly a view into a shared pool): copy into a plain Uint8Array.
    interaction.body = new Uint8Array(storedBody);
  } else if (typeof storedBody === "string") {
    interaction.body = textEncoder.encode(storedBody);
  } else if (storedBody !== undefined && storedBody !== null) {
    throw new Error(`${path}: interaction ${index}: unexpected body type ${typeof storedBody}`);
  } else if ("parsed_body" in response) {
    // pydantic-ai keeps non-streaming JSON responses only decoded; the original bytes are gone.
    interaction.body = textEncoder.encode(JSON.stringify(response.parsed_body));
    interaction.json = response.parsed_body;
    interaction.decoded = true;
  }

  if (isGzip(interaction.body)) {
    interaction.body = await gunzip(interaction.body);
    interaction.contentEncoding = "gzip";
  }
  interaction.bodyKind = sniffBodyKind(interaction.body);
  return interaction;
}

function cassetteRequest(request: Record<string, unknown>): FixtureRequest {
  const out: FixtureRequest = { headers: headerRecord(request.headers) };
  if (typeof request.method === "string") out.method = request.method;
  if (typeof request.uri === "string") out.uri = request.uri;
  if ("parsed_body" in request) out.body = request.parsed_body;
  else if ("body" in request) {
    out.body = request.body instanceof Uint8Array ? new Uint8Array(request.body) : request.body;
  }
  return out;
}

function headerRecord(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(raw)) return out;
  for (const [name, value] of Object.entries(raw)) {
    const values = Array.isArray(value) ? value : [value];
    out[name.toLowerCase()] = values.map(headerValue).join(", ");
  }
  return out;
}

function headerValue(value: unknown): string {
  if (value instanceof Uint8Array) return textDecoder.decode(value);
  return String(value);
}

function parseChunks(bytes: Uint8Array, path: string): Fixture {
  const lines = textDecoder
    .decode(bytes)
    .split("\n")
    .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
    .filter((line) => line !== "");
  const events = lines.map((line, i) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (error) {
      throw new Error(`${path}: line ${i + 1} is not JSON`, { cause: error });
    }
  });
  const interaction: FixtureInteraction = {
    index: 0,
    headers: {},
    body: bytes,
    bodyKind: "jsonl",
    decoded: true,
    lines,
    events,
  };
  if (!isDecodedEventLines(events)) {
    // SSE providers: each line was a `data:` payload; rebuild the SSE framing vercel dropped.
    interaction.body = textEncoder.encode(lines.map((line) => `data: ${line}\n\n`).join(""));
    interaction.bodyKind = "sse";
  }
  return { path, format: "chunks-jsonl", source: sourceOf(path), interactions: [interaction] };
}

/** Decoded event-stream events look like `{ "<eventType>": { ... } }`: exactly one key, an object value. */
function isDecodedEventLines(events: unknown[]): boolean {
  return (
    events.length > 0 &&
    events.every((event) => {
      if (!isRecord(event)) return false;
      const keys = Object.keys(event);
      return keys.length === 1 && keys[0] !== "type" && isRecord(event[keys[0] as string]);
    })
  );
}

async function loadVector(path: string, bytes: Uint8Array): Promise<Fixture> {
  const parts = path.split("/");
  const at = parts.indexOf(VECTOR_FOLDER);
  const side = parts[at + 1];
  const polarity = parts[at + 2];
  const name = parts[at + 3];
  if (
    (side !== "encoded" && side !== "decoded") ||
    (polarity !== "positive" && polarity !== "negative") ||
    !name
  ) {
    throw new Error(`${path}: expected ${VECTOR_FOLDER}/{encoded,decoded}/{positive,negative}/<name>`);
  }
  const prefix = parts.slice(0, at + 1).join("/");
  const twinPath = `${prefix}/${side === "encoded" ? "decoded" : "encoded"}/${polarity}/${name}`;
  const twin = new Uint8Array(await readFile(join(fixturesRoot(), twinPath)));
  const encoded = side === "encoded" ? bytes : twin;
  const expectedText = textDecoder.decode(side === "decoded" ? bytes : twin);
  const expected: EventStreamVector["expected"] =
    polarity === "positive"
      ? { message: JSON.parse(expectedText) as EventStreamVectorMessage }
      : { error: expectedText.trim() };

  const interaction: FixtureInteraction =
    side === "encoded"
      ? { index: 0, headers: {}, body: bytes, bodyKind: sniffBodyKind(bytes), decoded: false }
      : {
          index: 0,
          headers: {},
          body: bytes,
          bodyKind: sniffBodyKind(bytes),
          decoded: true,
          ...(polarity === "positive" ? { json: (expected as { message: unknown }).message } : {}),
        };
  return {
    path,
    format: "eventstream-vector",
    source: "aws-sdk-go",
    interactions: [interaction],
    vector: { name, polarity, encoded, expected },
  };
}

function looksLikeSse(text: string): boolean {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let firstLine: string | undefined;
  let hasEventLine = false;
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === "") continue;
    firstLine ??= line;
    if (line.startsWith("data:") || line.startsWith("event:")) {
      hasEventLine = true;
      break;
    }
  }
  const first = firstLine;
  if (first === undefined || !hasEventLine) return false;
  return ["data:", "event:", "id:", "retry:", ":"].some((prefix) => first.startsWith(prefix));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

function sourceOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const cut = name.indexOf("__");
  return cut === -1 ? "unknown" : name.slice(0, cut);
}
