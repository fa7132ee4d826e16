import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { readSse } from "../../src/wire/sse.ts";
import {
  byteStream,
  byteStreamSplitAt,
  chunkBytes,
  concatBytes,
  controlledByteStream,
  readAllBytes,
  splitAt,
  trackedByteStream,
} from "./byte-stream.ts";
import {
  type Fixture,
  type FixtureInteraction,
  fixturesRoot,
  listFixtures,
  loadFixture,
  parseCassette,
  sniffBodyKind,
  sseFixtures,
} from "./fixtures.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const text = (bytes: Uint8Array): string => decoder.decode(bytes);

/** Every file on disk under the fixtures folder, found independently of the loader. */
function filesOnDisk(dir = fixturesRoot()): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesOnDisk(path));
    else out.push(relative(fixturesRoot(), path).split(sep).join("/"));
  }
  return out.sort();
}

// CRC-32 (IEEE), as used by the AWS event-stream prelude and message checksums.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

interface Frame {
  totalLength: number;
  headers: Record<string, string>;
  payload: Uint8Array;
  preludeCrcOk: boolean;
  messageCrcOk: boolean;
}

/** Walk an event-stream body frame by frame (string headers only, which is all Bedrock sends). */
function frames(body: Uint8Array): Frame[] {
  const out: Frame[] = [];
  let offset = 0;
  while (offset < body.length) {
    const view = new DataView(body.buffer, body.byteOffset + offset);
    const totalLength = view.getUint32(0);
    const headersLength = view.getUint32(4);
    const frame = body.subarray(offset, offset + totalLength);
    expect(frame.length, `frame at ${offset} runs past the end of the body`).toBe(totalLength);
    const headers: Record<string, string> = {};
    let h = 12;
    while (h < 12 + headersLength) {
      const nameLength = frame[h]!;
      const name = text(frame.subarray(h + 1, h + 1 + nameLength));
      h += 1 + nameLength;
      expect(frame[h], `header ${name} type`).toBe(7);
      const valueLength = (frame[h + 1]! << 8) | frame[h + 2]!;
      headers[name] = text(frame.subarray(h + 3, h + 3 + valueLength));
      h += 3 + valueLength;
    }
    out.push({
      totalLength,
      headers,
      payload: frame.subarray(12 + headersLength, totalLength - 4),
      preludeCrcOk: crc32(frame.subarray(0, 8)) === view.getUint32(8),
      messageCrcOk: crc32(frame.subarray(0, totalLength - 4)) === view.getUint32(totalLength - 4),
    });
    offset += totalLength;
  }
  return out;
}

async function sseEvents(body: Uint8Array) {
  const events = [];
  for await (const event of readSse(byteStream(body))) events.push(event);
  return events;
}

function only(fixture: Fixture): FixtureInteraction {
  expect(fixture.interactions).toHaveLength(1);
  return fixture.interactions[0]!;
}

const ALL = listFixtures();

describe("listFixtures", () => {
  it("lists every file in test/fixtures except README.md and the license texts, with its format", () => {
    const onDisk = filesOnDisk().filter((path) => path !== "README.md" && !path.startsWith("LICENSES/"));
    console.info(`fixtures: ${ALL.length} files`);
    expect(onDisk.length).toBeGreaterThan(0);
    expect(ALL.map((info) => info.path)).toEqual(onDisk);
    expect(ALL.every((info) => info.size > 0)).toBe(true);
    expect(new Set(ALL.map((info) => info.folder))).toEqual(
      new Set(["anthropic", "bedrock", "google", "openai-chat", "openai-responses"]),
    );
  });

  it("filters by folder", () => {
    const vectors = listFixtures("bedrock/aws-eventstream-test-vectors");
    expect(vectors).toHaveLength(18);
    expect(vectors.every((info) => info.format === "eventstream-vector")).toBe(true);
    expect(listFixtures("anthropic").every((info) => info.path.startsWith("anthropic/"))).toBe(true);
  });
});

describe.each(ALL.map((info) => [info.path, info] as const))("%s", (path, info) => {
  it("loads, with at least one real or decoded body, consistent with its folder", async () => {
    const fixture = await loadFixture(path);
    expect(fixture.path).toBe(path);
    expect(fixture.format).toBe(info.format);
    expect(fixture.interactions.length).toBeGreaterThan(0);
    expect(fixture.interactions.some((i) => i.body.length > 0 || i.decoded)).toBe(true);

    for (const interaction of fixture.interactions) {
      // The sniffed kind must match the bytes, whatever the headers said.
      expect(interaction.bodyKind).toBe(sniffBodyKind(interaction.body));
      if (interaction.json !== undefined) {
        expect(JSON.parse(text(interaction.body))).toEqual(interaction.json);
      }
      if (interaction.bodyKind === "eventstream" && fixture.format === "vcr-yaml") {
        // Every frame's lengths chain to the exact end of the body and every CRC checks out:
        // the base64 was decoded to the exact bytes.
        const all = frames(interaction.body);
        expect(all.length).toBeGreaterThan(0);
        expect(all.every((frame) => frame.preludeCrcOk && frame.messageCrcOk)).toBe(true);
        expect(all.every((frame) => frame.headers[":message-type"] === "event")).toBe(true);
      }
      if (fixture.format === "eventstream-vector") {
        const vector = fixture.vector!;
        expect(vector.encoded.length).toBeGreaterThanOrEqual(16);
        const view = new DataView(vector.encoded.buffer, vector.encoded.byteOffset);
        if ("message" in vector.expected) {
          expect(view.getUint32(0)).toBe(vector.encoded.length);
          expect(crc32(vector.encoded.subarray(0, 8))).toBe(vector.expected.message.prelude_crc >>> 0);
        } else {
          expect(["Prelude checksum mismatch", "Message checksum mismatch"]).toContain(vector.expected.error);
        }
      }
      if (interaction.bodyKind === "sse") {
        const events = await sseEvents(interaction.body);
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) {
          if (event.data === "[DONE]") continue;
          const data = JSON.parse(event.data) as { type?: unknown };
          // Anthropic and Responses name each event after its payload's type.
          if (event.event !== undefined && typeof data.type === "string") expect(data.type).toBe(event.event);
        }
      }
    }

    if (fixture.format === "vcr-yaml") {
      for (const interaction of fixture.interactions) {
        expect(interaction.request?.uri).toMatch(/^https:\/\//);
        expect(typeof interaction.status).toBe("number");
        // Besides the provider calls (POST), a few cassettes record what the client did around them: the
        // download of a URL it then sent inline (GET), a file-store clean-up (DELETE). Those are not calls.
        expect(["POST", "GET", "DELETE"]).toContain(interaction.request?.method);
        if (interaction.request?.method !== "POST") continue;
        if (info.folder === "bedrock") {
          expect(["eventstream", "json"]).toContain(interaction.bodyKind);
          if (interaction.bodyKind === "eventstream") expect(interaction.decoded).toBe(false);
        } else {
          expect(["sse", "json", "empty"]).toContain(interaction.bodyKind);
        }
        // A non-streaming body is kept decoded (`parsed_body`, re-serialised) or, rarely, as its text.
        if (interaction.bodyKind === "json" && !interaction.decoded) expect(interaction.json).toBeUndefined();
      }
    }
    if (fixture.format === "raw-sse") {
      expect(only(fixture).body).toEqual(new Uint8Array(readFileSync(info.absolutePath)));
      expect(only(fixture).bodyKind).toBe("sse");
    }
  });
});

describe("vcrpy cassettes (single-quoted folded scalars)", () => {
  it("decodes folding to real SSE separators and '' to '", async () => {
    const fixture = await loadFixture("anthropic/openllmetry__test_anthropic_tools_streaming_legacy.yaml");
    const [interaction] = fixture.interactions;
    const body = text(interaction!.body);
    expect(interaction!.status).toBe(200);
    expect(interaction!.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(body.startsWith('event: message_start\ndata: {"type":"message_start"')).toBe(true);
    // A folded line break inside the JSON string is one space; blank lines are "\n"; '' is '.
    expect(body).toContain(
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" Francisco, I\'ll nee"}       }\n\nevent: content_block_delta\n',
    );
    expect(body).not.toContain("''");
    expect(body).not.toContain("\n\n\n");
    const events = await sseEvents(interaction!.body);
    expect(events[0]!.event).toBe("message_start");
    expect(events.at(-1)!.event).toBe("message_stop");
    expect(events.filter((event) => event.event === "content_block_start")).toHaveLength(3);
  });

  it("keeps every interaction of a mixed cassette, including empty 204 bodies", async () => {
    const fixture = await loadFixture(
      "openai-responses/openllmetry__test_music_composer_handoff_hierarchy.yaml",
    );
    expect(fixture.interactions.map((i) => [i.status, i.bodyKind])).toEqual([
      [204, "empty"],
      [200, "sse"],
      [200, "sse"],
      [204, "empty"],
      [200, "sse"],
    ]);
  });

  it("decodes !!binary request header values to text", async () => {
    const fixture = await loadFixture("bedrock/openllmetry__test_anthropic_3_completion_streaming.yaml");
    const request = only(fixture).request!;
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-amz-date"]).toBe("20240611T003439Z");
    expect(request.headers["content-length"]).toBe("191");
  });
});

describe("pydantic-ai cassettes", () => {
  it("keeps a `string: |+` body byte for byte, padding and final blank line included", async () => {
    const fixture = await loadFixture(
      "anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml",
    );
    const body = text(only(fixture).body);
    expect(body).toContain('data: {"type":"content_block_stop","index":0               }\n\n');
    expect(body.endsWith('event: message_stop\ndata: {"type":"message_stop"         }\n\n')).toBe(true);
    expect(only(fixture).request?.body).toMatchObject({ stream: true });
  });

  it("reads a double-quoted scalar body (DeepSeek)", async () => {
    const fixture = await loadFixture("openai-chat/pydantic-ai__test_deepseek_model_thinking_stream.yaml");
    const body = text(only(fixture).body);
    expect(body.startsWith('data: {"id":"33be18fc-3842-486c-8c29-dd8e578f7f20"')).toBe(true);
    expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true);
    // `\U0001F60A` escape and a folded line break (one space) inside a double-quoted scalar.
    expect(body).toContain('"delta":{"content":" \u{1F60A}","reasoning_content":null}');
    expect(body).toContain('"delta":{"content":" there","reasoning_content":null}');
  });

  it("re-serialises parsed_body and marks it decoded", async () => {
    const fixture = await loadFixture("bedrock/pydantic-ai__test_bedrock_streaming_error.yaml");
    const interaction = only(fixture);
    expect(interaction.status).toBe(400);
    expect(interaction.decoded).toBe(true);
    expect(interaction.bodyKind).toBe("json");
    expect(JSON.parse(text(interaction.body))).toEqual(interaction.json);
    expect(interaction.json).toMatchObject({ message: expect.any(String) });
  });

  it("decodes a Bedrock !!binary body to frames that start with the first frame's big-endian length", async () => {
    const fixture = await loadFixture("bedrock/pydantic-ai__test_bedrock_model_thinking_part_stream.yaml");
    const body = only(fixture).body;
    expect(only(fixture).bodyKind).toBe("eventstream");
    const firstLength = new DataView(body.buffer, body.byteOffset).getUint32(0, false);
    const all = frames(body);
    expect(firstLength).toBe(all[0]!.totalLength);
    expect(all.reduce((sum, frame) => sum + frame.totalLength, 0)).toBe(body.length);
    expect(all[0]!.headers[":event-type"]).toBe("messageStart");
    expect(all.at(-1)!.headers[":event-type"]).toBe("metadata");
    expect(JSON.parse(text(all[0]!.payload))).toMatchObject({ role: "assistant" });
  });
});

describe("gzip-compressed cassette bodies", () => {
  async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
    const stream = new Blob([bytes.slice()]).stream().pipeThrough(new CompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  const base64Block = (bytes: Uint8Array) =>
    (
      Buffer.from(bytes)
        .toString("base64")
        .match(/.{1,76}/g) ?? []
    )
      .map((line) => `        ${line}`)
      .join("\n");
  const cassette = (headers: string, body: Uint8Array) =>
    [
      "interactions:",
      "- request:",
      "    body: null",
      "    headers: {}",
      "    method: POST",
      "    uri: https://api.example.com/v1/x",
      "  response:",
      "    body:",
      "      string: !!binary |",
      base64Block(body),
      `    headers:${headers}`,
      "    status:",
      "      code: 200",
      "      message: OK",
      "version: 1",
      "",
    ].join("\n");
  const json = '{"id":"msg_1","content":[{"type":"text","text":"héllo €"}]}';

  it("decompresses when content-encoding says gzip", async () => {
    const compressed = await gzip(encoder.encode(json));
    const fixture = await parseCassette(
      cassette(
        "\n      Content-Encoding:\n      - gzip\n      Content-Type:\n      - application/json",
        compressed,
      ),
    );
    const interaction = only(fixture);
    expect(interaction.contentEncoding).toBe("gzip");
    expect(interaction.headers["content-encoding"]).toBe("gzip");
    expect(text(interaction.body)).toBe(json);
    expect(interaction.bodyKind).toBe("json");
    expect(interaction.decoded).toBe(false);
  });

  it("decompresses by sniffing the gzip magic when headers were stripped", async () => {
    const sse = "event: ping\ndata: {}\n\n";
    const fixture = await parseCassette(cassette(" {}", await gzip(encoder.encode(sse))));
    expect(text(only(fixture).body)).toBe(sse);
    expect(only(fixture).bodyKind).toBe("sse");
    expect(only(fixture).headers).toEqual({});
  });
});

describe("vercel chunks.txt", () => {
  it("wraps each line of an SSE provider's file as one `data:` event, keeping the raw lines", async () => {
    const fixture = await loadFixture("anthropic/vercel-ai__anthropic-refusal.chunks.txt");
    const interaction = only(fixture);
    const raw = readFileSync(join(fixturesRoot(), fixture.path), "utf8");
    expect(interaction.lines).toEqual(raw.split("\n").filter((line) => line !== ""));
    expect(interaction.lines).toHaveLength(4);
    expect(interaction.decoded).toBe(true);
    expect(text(interaction.body)).toBe(interaction.lines!.map((line) => `data: ${line}\n\n`).join(""));
    const events = await sseEvents(interaction.body);
    expect(events.map((event) => event.data)).toEqual(interaction.lines);
    expect(interaction.events![0]).toMatchObject({ type: "message_start" });
  });

  it("yields one event per line for every SSE chunks file", async () => {
    for (const info of listFixtures().filter((i) => i.format === "chunks-jsonl")) {
      const interaction = only(await loadFixture(info.path));
      if (interaction.bodyKind !== "sse") continue;
      const events = await sseEvents(interaction.body);
      expect(
        events.map((event) => event.data),
        info.path,
      ).toEqual(interaction.lines);
    }
  });

  it("exposes Bedrock decoded events as parsed objects, without SSE framing", async () => {
    const fixture = await loadFixture("bedrock/vercel-ai__amazon-bedrock-text.chunks.txt");
    const interaction = only(fixture);
    expect(interaction.bodyKind).toBe("jsonl");
    expect(interaction.events).toHaveLength(16);
    expect(interaction.events![0]).toEqual({ messageStart: { role: "assistant" } });
    expect(interaction.events!.every((event) => Object.keys(event as object).length === 1)).toBe(true);
    expect(text(interaction.body)).not.toContain("data:");
  });
});

describe("AWS event-stream test vectors", () => {
  it("pairs each encoded message with its decoded expectation", async () => {
    const fixture = await loadFixture("bedrock/aws-eventstream-test-vectors/encoded/positive/all_headers");
    const vector = fixture.vector!;
    expect(vector.polarity).toBe("positive");
    expect(only(fixture).body).toEqual(vector.encoded);
    expect(only(fixture).bodyKind).toBe("eventstream");
    if (!("message" in vector.expected)) throw new Error("expected a decoded message");
    const message = vector.expected.message;
    const view = new DataView(vector.encoded.buffer, vector.encoded.byteOffset);
    expect(view.getUint32(0)).toBe(message.total_length);
    expect(vector.encoded.length).toBe(message.total_length);
    expect(view.getUint32(4)).toBe(message.headers_length);
    expect(crc32(vector.encoded.subarray(0, 8))).toBe(message.prelude_crc >>> 0);
    expect(crc32(vector.encoded.subarray(0, message.total_length - 4))).toBe(message.message_crc >>> 0);
    expect(message.headers.map((header) => header.type).sort((a, b) => a - b)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
  });

  it("loads a decoded negative vector with its error text and the corrupted bytes", async () => {
    const fixture = await loadFixture(
      "bedrock/aws-eventstream-test-vectors/decoded/negative/corrupted_payload",
    );
    expect(fixture.vector!.expected).toEqual({ error: "Message checksum mismatch" });
    expect(only(fixture).bodyKind).toBe("text");
    const encoded = fixture.vector!.encoded;
    const view = new DataView(encoded.buffer, encoded.byteOffset);
    expect(crc32(encoded.subarray(0, 8))).toBe(view.getUint32(8));
    expect(crc32(encoded.subarray(0, encoded.length - 4))).not.toBe(view.getUint32(encoded.length - 4));
  });
});

describe("sseFixtures", () => {
  it("returns every SSE body once, real and rebuilt", async () => {
    const all = await sseFixtures();
    const real = await sseFixtures({ includeDecoded: false });
    expect(new Set(all.map((fixture) => fixture.name)).size).toBe(all.length);
    expect(real.every((fixture) => !fixture.decoded)).toBe(true);
    expect(all.filter((fixture) => !fixture.decoded).map((fixture) => fixture.name)).toEqual(
      real.map((fixture) => fixture.name),
    );
    expect(all.length).toBeGreaterThan(real.length);
    expect(real.map((fixture) => fixture.name)).toContain(
      "openai-chat/pydantic-ai__test_tool_use_failed_error_streaming.yaml#2",
    );
    expect(all.every((fixture) => sniffBodyKind(fixture.body) === "sse")).toBe(true);
  });
});

describe("byte-stream helpers", () => {
  const bytes = encoder.encode("abcdefghij");

  it("chunkBytes cycles the sizes and keeps every byte", () => {
    const chunks = chunkBytes(bytes, [1, 3]);
    expect(chunks.map(text)).toEqual(["a", "bcd", "e", "fgh", "i", "j"]);
    expect(chunkBytes(bytes, (i) => i + 1).map(text)).toEqual(["a", "bc", "def", "ghij"]);
    expect(chunkBytes(new Uint8Array(0), [1])).toEqual([]);
    expect(() => chunkBytes(bytes, [-1])).toThrow(RangeError);
    expect(() => chunkBytes(bytes, [0])).toThrow(RangeError);
  });

  it("splitAt cuts at sorted offsets, repeated offsets giving empty chunks", () => {
    expect(splitAt(bytes, [7, 2, 2]).map(text)).toEqual(["ab", "", "cdefg", "hij"]);
    expect(concatBytes(splitAt(bytes, [0, 10]))).toEqual(bytes);
    expect(() => splitAt(bytes, [11])).toThrow(RangeError);
  });

  it("byteStream delivers the chunks in order, one per read", async () => {
    const reader = byteStream(bytes, [4]).getReader();
    expect(text((await reader.read()).value!)).toBe("abcd");
    expect(text((await reader.read()).value!)).toBe("efgh");
    expect(text((await reader.read()).value!)).toBe("ij");
    expect((await reader.read()).done).toBe(true);
    expect(await readAllBytes(byteStreamSplitAt(bytes, [3, 5]))).toEqual(bytes);
  });

  it("trackedByteStream records pulls and cancellation", async () => {
    const { stream, state } = trackedByteStream(bytes, [1]);
    const reader = stream.getReader();
    await reader.read();
    await reader.read();
    expect(state).toMatchObject({ pulls: 2, chunksDelivered: 2, bytesDelivered: 2, cancelled: false });
    await reader.cancel("stop");
    expect(state).toMatchObject({ cancelled: true, cancelReason: "stop", closed: false });
  });

  it("controlledByteStream delivers nothing until pushed", async () => {
    const { stream, push, close, state } = controlledByteStream();
    const reader = stream.getReader();
    let settled = false;
    const read = reader.read().then((result) => {
      settled = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    push("x");
    expect(text((await read).value!)).toBe("x");
    close();
    expect((await reader.read()).done).toBe(true);
    expect(state.closed).toBe(true);
  });
});
