/** `OTEL_EXPORTER_OTLP_HEADERS` as the OTel SDKs read it: `k1=v1,k2=v2`, trimmed, values percent-decoded. */
import { describe, expect, it } from "vitest";
import { otlpHeaders } from "../../src/worker/otlp-headers.ts";

describe("otlpHeaders", () => {
  it("reads k=v pairs, trims them and percent-decodes the values", () => {
    expect(otlpHeaders(" x-api-key = abc%3D%3D , x-dataset=my%20traces,authorization=Basic a=b")).toEqual({
      "x-api-key": "abc==",
      "x-dataset": "my traces",
      authorization: "Basic a=b",
    });
  });

  it("skips pairs without a key or an =, and keeps a value that is not percent-encoding", () => {
    expect(otlpHeaders("=v,novalue,,k=100%")).toEqual({ k: "100%" });
    expect(otlpHeaders(undefined)).toEqual({});
  });
});
