/** readAwsEventStream against the aws-sdk-go codec test vectors and every real recorded Bedrock stream. */
import { describe, expect, it } from "vitest";
import { decodeAwsEventFrame, frameInfo } from "../../src/wire/aws-event-stream.ts";
import { crc32 } from "../../src/wire/crc32.ts";
import { byteStream, type ChunkSizes, trackedByteStream } from "../helpers/byte-stream.ts";
import type { EventStreamVectorHeader, EventStreamVectorMessage } from "../helpers/fixtures.ts";
import {
  base64,
  CONVERSE_EVENTS,
  collect,
  collectUntilError,
  decoder,
  expectedValue,
  expectWireError,
  JS_TYPE_BY_WIRE_TYPE,
  jsTypeOf,
  negatives,
  positives,
  type RecordedStream,
  recorded,
  thrown,
  walkFrames,
} from "./aws-event-stream.helpers.ts";

describe("AWS event-stream codec test vectors (aws-sdk-go)", () => {
  it("has all of them: 5 positive, 4 negative", () => {
    expect(positives.map((v) => v.name).sort()).toEqual([
      "all_headers",
      "empty_message",
      "int32_header",
      "payload_no_headers",
      "payload_one_str_header",
    ]);
    expect(negatives.map((v) => v.name).sort()).toEqual([
      "corrupted_header_len",
      "corrupted_headers",
      "corrupted_length",
      "corrupted_payload",
    ]);
  });

  it("all_headers covers every header type 0-9", () => {
    const all = positives.find((v) => v.name === "all_headers")!;
    const message = (all.expected as { message: { headers: EventStreamVectorHeader[] } }).message;
    expect(new Set(message.headers.map((h) => h.type))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
  });

  describe.each(positives.map((v) => [v.name, v] as const))("positive %s", (_name, vector) => {
    const expected = (vector.expected as { message: EventStreamVectorMessage }).message;

    it("decodes to exactly the expected headers (name, type, value, order) and payload", () => {
      const decoded = decodeAwsEventFrame(vector.encoded);
      expect(Object.keys(decoded.headers)).toEqual(expected.headers.map((h) => h.name));
      for (const header of expected.headers) {
        const value = decoded.headers[header.name]!;
        expect(jsTypeOf(value), header.name).toBe(JS_TYPE_BY_WIRE_TYPE[header.type]);
        expect(value, header.name).toEqual(expectedValue(header));
      }
      expect(decoded.payload).toEqual(base64(expected.payload));
    });

    it("has the expected lengths and CRCs (our crc32 agrees with Go's)", () => {
      const bytes = vector.encoded;
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      expect(bytes.length).toBe(expected.total_length);
      expect(view.getUint32(0)).toBe(expected.total_length);
      expect(view.getUint32(4)).toBe(expected.headers_length);
      expect(crc32(bytes.subarray(0, 8))).toBe(expected.prelude_crc >>> 0);
      expect(crc32(bytes.subarray(0, bytes.length - 4))).toBe(expected.message_crc >>> 0);
    });

    it("decodes the same through the stream reader, whole and one byte at a time", async () => {
      const whole = decodeAwsEventFrame(vector.encoded);
      for (const sizes of [undefined, [1], [5, 2, 11]] as (ChunkSizes | undefined)[]) {
        const { frames } = await collect(byteStream(vector.encoded, sizes));
        expect(frames).toEqual([whole]);
      }
    });
  });

  describe.each(negatives.map((v) => [v.name, v] as const))("negative %s", (_name, vector) => {
    const reason = (vector.expected as { error: string }).error;

    it("fails with corrupt_frame and the expected reason", () => {
      expect(["Prelude checksum mismatch", "Message checksum mismatch"]).toContain(reason);
      const error = thrown(() => decodeAwsEventFrame(vector.encoded));
      expectWireError(error, "corrupt_frame", new RegExp(reason, "i"));
    });

    it("fails the same way through the stream reader, whole and one byte at a time, with no frame", async () => {
      for (const sizes of [undefined, [1], [7]] as (ChunkSizes | undefined)[]) {
        const tracked = trackedByteStream(vector.encoded, sizes);
        const { frames, error } = await collectUntilError(tracked.stream);
        expect(frames).toEqual([]);
        expectWireError(error, "corrupt_frame", new RegExp(reason, "i"));
        // A prelude failure is caught after 12 bytes, before the (wrong) length is waited for.
        if (/prelude/i.test(reason) && sizes !== undefined) {
          expect(tracked.state.bytesDelivered).toBeLessThanOrEqual(12 + 6);
        }
      }
    });
  });
});

describe("every real recorded Bedrock stream", () => {
  it("finds exactly the 8 recorded event-stream bodies", () => {
    expect(recorded.map((r) => r.name)).toEqual([
      "bedrock/openllmetry__test_anthropic_3_completion_streaming.yaml#0",
      "bedrock/openllmetry__test_anthropic_converse_stream_with_tool_use.yaml#0",
      "bedrock/openllmetry__test_nova_invoke_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_code_execution_tool_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_iter_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_iter_stream.yaml#1",
      "bedrock/pydantic-ai__test_bedrock_model_thinking_part_redacted_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_thinking_part_stream.yaml#0",
    ]);
  });

  it.each(recorded.map((r) => [r.name, r] as const))(
    "%s decodes completely: CRCs valid, event headers, JSON payloads",
    async (name, stream: RecordedStream) => {
      const walked = walkFrames(stream.body);
      const { frames, batches } = await collect(byteStream(stream.body));
      expect(batches).toBe(1);
      expect(frames.length).toBe(walked.length);
      const invoke = name.includes("_invoke_") || name.includes("completion_streaming");
      for (const [i, decoded] of frames.entries()) {
        // Whole-frame decoding agrees with the streaming one (and verifies both CRCs again).
        expect(decodeAwsEventFrame(walked[i]!)).toEqual(decoded);
        const info = frameInfo(decoded);
        expect(info.messageType).toBe("event");
        expect(info.contentType).toBe("application/json");
        expect(info.exceptionType).toBeUndefined();
        expect(Object.keys(decoded.headers).sort()).toEqual([
          ":content-type",
          ":event-type",
          ":message-type",
        ]);
        if (invoke) expect(info.eventType).toBe("chunk");
        else expect(CONVERSE_EVENTS.has(info.eventType!), info.eventType).toBe(true);
        const payload = JSON.parse(decoder.decode(decoded.payload)) as Record<string, unknown>;
        expect(typeof payload).toBe("object");
        if (invoke) {
          // InvokeModelWithResponseStream: the model's own event JSON, base64 in `bytes`.
          expect(JSON.parse(decoder.decode(base64(payload.bytes as string)))).toBeTypeOf("object");
        }
      }
    },
  );

  it("frame counts match the recordings' descriptions (README)", async () => {
    const count = async (suffix: string) =>
      (await collect(byteStream(recorded.find((r) => r.name.endsWith(suffix))!.body))).frames.length;
    expect(await count("test_anthropic_3_completion_streaming.yaml#0")).toBe(23);
    expect(await count("test_nova_invoke_stream.yaml#0")).toBe(115);
  });

  it("Anthropic on InvokeModelWithResponseStream: the base64 bytes are the Anthropic event sequence", async () => {
    const stream = recorded.find((r) => r.name.includes("anthropic_3_completion_streaming"))!;
    const { frames } = await collect(byteStream(stream.body, [97]));
    const types = frames.map(
      (f) =>
        (
          JSON.parse(
            decoder.decode(base64((JSON.parse(decoder.decode(f.payload)) as { bytes: string }).bytes)),
          ) as { type: string }
        ).type,
    );
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
  });
});
