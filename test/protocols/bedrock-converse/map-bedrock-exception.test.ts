import { describe, expect, it } from "vitest";
import { PROVIDER_ERROR_KINDS } from "../../../src/core/provider-error.ts";
import { mapBedrockException } from "../../../src/protocols/bedrock-converse/map-bedrock-exception.ts";
import { decodeAwsEventFrame, readAwsEventStream } from "../../../src/wire/aws-event-stream.ts";
import { crc32 } from "../../../src/wire/crc32.ts";
import { byteStream } from "../../helpers/byte-stream.ts";

const encoder = new TextEncoder();

function stringHeader(name: string, value: string): number[] {
  const n = encoder.encode(name);
  const v = encoder.encode(value);
  return [n.length, ...n, 7, v.length >> 8, v.length & 0xff, ...v];
}

/** A frame as Bedrock would send it, with correct CRCs. */
function frame(headers: Record<string, string>, payload: string): Uint8Array {
  const h = Object.entries(headers).flatMap(([name, value]) => stringHeader(name, value));
  const p = encoder.encode(payload);
  const total = 16 + h.length + p.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, h.length);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  out.set(h, 12);
  out.set(p, 12 + h.length);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

function exceptionFrame(exceptionType: string, payload: string): Uint8Array {
  return frame(
    { ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" },
    payload,
  );
}

describe("mapBedrockException: the stream exceptions of ConverseStream / InvokeModelWithResponseStream", () => {
  it.each([
    ["throttlingException", "rate_limit"],
    ["serviceUnavailableException", "overloaded"],
    ["modelStreamErrorException", "server"],
    ["internalServerException", "server"],
    ["validationException", "bad_request"],
    ["modelTimeoutException", "timeout"],
  ] as const)("%s frame → %s, with the payload's message", (exceptionType, kind) => {
    const decoded = decodeAwsEventFrame(exceptionFrame(exceptionType, '{"message":"Something happened."}'));
    expect(mapBedrockException(decoded)).toEqual({
      kind,
      message: "Something happened.",
      code: exceptionType,
    });
  });

  it("the HTTP-level exceptions, by name (PascalCase as in x-amzn-errortype, or camelCase)", () => {
    const cases = [
      ["AccessDeniedException", "auth"],
      ["accessDeniedException", "auth"],
      ["ResourceNotFoundException", "not_found"],
      ["ModelNotReadyException", "overloaded"],
      ["ModelTimeoutException", "timeout"],
      ["ModelErrorException", "server"],
      ["ServiceQuotaExceededException", "rate_limit"],
      ["ThrottlingException", "rate_limit"],
      ["ServiceUnavailableException", "overloaded"],
      ["InternalServerException", "server"],
      ["ValidationException", "bad_request"],
      ["UnrecognizedClientException", "auth"],
      ["InvalidSignatureException", "auth"],
      ["ExpiredTokenException", "auth"],
    ] as const;
    for (const [exceptionType, kind] of cases) {
      expect(mapBedrockException({ exceptionType, message: "m" }), exceptionType).toEqual({
        kind,
        message: "m",
        code: exceptionType,
      });
    }
  });

  it("strips the x-amzn-errortype URL suffix and a Smithy namespace", () => {
    expect(
      mapBedrockException({
        exceptionType: "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
        message: "bad",
      }),
    ).toEqual({ kind: "bad_request", message: "bad", code: "ValidationException" });
    expect(
      mapBedrockException({ exceptionType: "com.amazonaws.bedrockruntime#ThrottlingException" }),
    ).toEqual({
      kind: "rate_limit",
      message: "Bedrock ThrottlingException",
      code: "ThrottlingException",
    });
  });

  it("unknown, missing or prototype-like names are server errors", () => {
    expect(mapBedrockException({ exceptionType: "brandNewException", message: "x" }).kind).toBe("server");
    expect(mapBedrockException({ exceptionType: undefined })).toEqual({
      kind: "server",
      message: "Bedrock stream error",
      code: undefined,
    });
    expect(mapBedrockException({ exceptionType: "   " }).code).toBeUndefined();
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(mapBedrockException({ exceptionType: name }).kind, name).toBe("server");
    }
  });

  it("validationException that says the input is too long → context_length", () => {
    for (const message of [
      "Input is too long for requested model.",
      "The model returned the following errors: Input is too long for requested model.",
      "prompt is too long: 215000 tokens > 200000 maximum",
      "The model returned the following errors: input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000",
      "This model's maximum context length is 32768 tokens.",
      "Too many input tokens.",
    ]) {
      const decoded = decodeAwsEventFrame(exceptionFrame("validationException", JSON.stringify({ message })));
      expect(mapBedrockException(decoded), message).toEqual({
        kind: "context_length",
        message,
        code: "validationException",
      });
      expect(mapBedrockException({ exceptionType: "ValidationException", message }).kind).toBe(
        "context_length",
      );
    }
    // Other validation failures stay bad_request; other kinds are never turned into context_length.
    expect(
      mapBedrockException({
        exceptionType: "validationException",
        message: "Malformed input request: tool name",
      }).kind,
    ).toBe("bad_request");
    expect(
      mapBedrockException({ exceptionType: "modelStreamErrorException", message: "Input is too long" }).kind,
    ).toBe("server");
  });

  it("modelStreamErrorException keeps the model's originalMessage", () => {
    const decoded = decodeAwsEventFrame(
      exceptionFrame(
        "modelStreamErrorException",
        JSON.stringify({
          message: "Stream failed.",
          originalStatusCode: 500,
          originalMessage: "model crashed",
        }),
      ),
    );
    expect(mapBedrockException(decoded)).toEqual({
      kind: "server",
      message: "Stream failed. (model crashed)",
      code: "modelStreamErrorException",
    });
    const onlyOriginal = decodeAwsEventFrame(
      exceptionFrame("modelStreamErrorException", JSON.stringify({ originalMessage: "model crashed" })),
    );
    expect(mapBedrockException(onlyOriginal).message).toBe("model crashed");
  });

  it("message sources: Message (capital M), :error-message, a text payload, or the name", () => {
    expect(
      mapBedrockException(
        decodeAwsEventFrame(exceptionFrame("throttlingException", '{"Message":"slow down"}')),
      ),
    ).toMatchObject({ kind: "rate_limit", message: "slow down" });
    expect(
      mapBedrockException(decodeAwsEventFrame(exceptionFrame("throttlingException", "slow down, plain"))),
    ).toMatchObject({
      message: "slow down, plain",
    });
    expect(mapBedrockException(decodeAwsEventFrame(exceptionFrame("throttlingException", "")))).toMatchObject(
      {
        message: "Bedrock throttlingException",
      },
    );
    expect(
      mapBedrockException(decodeAwsEventFrame(exceptionFrame("throttlingException", "{}"))),
    ).toMatchObject({
      message: "Bedrock throttlingException",
    });
    const long = "x".repeat(5000);
    expect(
      mapBedrockException(decodeAwsEventFrame(exceptionFrame("throttlingException", long))).message.length,
    ).toBe(1001);
    // `:message-type: error` (an unmodeled error) carries its code and message in headers.
    const error = decodeAwsEventFrame(
      frame({ ":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom" }, ""),
    );
    expect(mapBedrockException(error)).toEqual({ kind: "server", message: "boom", code: "InternalFailure" });
  });

  it("an exception frame in the middle of a stream, read through readAwsEventStream", async () => {
    const body = new Uint8Array([
      ...frame(
        { ":event-type": "messageStart", ":content-type": "application/json", ":message-type": "event" },
        '{"role":"assistant"}',
      ),
      ...exceptionFrame(
        "throttlingException",
        '{"message":"Too many tokens, please wait before trying again."}',
      ),
    ]);
    const frames = [];
    for await (const batch of readAwsEventStream(byteStream(body, [3]))) frames.push(...batch);
    expect(frames.length).toBe(2);
    const info = mapBedrockException(frames[1]!);
    expect(info).toEqual({
      kind: "rate_limit",
      message: "Too many tokens, please wait before trying again.",
      code: "throttlingException",
    });
  });

  it("only ever returns a known kind", () => {
    for (const exceptionType of ["throttlingException", "x", undefined, "ValidationException"]) {
      expect(PROVIDER_ERROR_KINDS).toContain(mapBedrockException({ exceptionType, message: "m" }).kind);
    }
  });
});
