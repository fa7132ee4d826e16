/** bedrock(): settings, the auth choice, URLs and bearer auth. */
import { describe, expect, it, vi } from "vitest";
import { anthropicModelProfile, collectStream, ValidationError } from "../../src/index.ts";
import { type BedrockSettings, bedrock, encodeModelId } from "../../src/providers/bedrock.ts";
import { converseFrames, invokeFrames } from "../helpers/bedrock-frames.ts";
import {
  ACCESS_KEY,
  BEARER,
  CLAUDE,
  CONVERSE_EVENTS,
  CONVERSE_JSON,
  eventStream,
  fakeFetch,
  HISTORY,
  invokeMessageJson,
  json,
  quiet,
  SECRET_KEY,
  SESSION_TOKEN,
  THINKING_TOOL_EVENTS,
} from "./bedrock.helpers.ts";

describe("bedrock(): configuration and the auth choice", () => {
  it("bearer auth without a key: a ValidationError naming apiKey and AWS_BEARER_TOKEN_BEDROCK, before any request", () => {
    const { fetch, requests } = fakeFetch(() => json({}));
    for (const env of [
      undefined,
      {},
      { AWS_BEARER_TOKEN_BEDROCK: "" },
      { AWS_BEARER_TOKEN_BEDROCK: "   " },
    ]) {
      let error: unknown;
      try {
        bedrock({
          region: "us-east-1",
          model: CLAUDE,
          api: "invoke",
          auth: "bearer",
          env,
          apiKey: "",
          fetch,
          ...quiet,
        });
      } catch (caught) {
        error = caught;
      }
      expect(ValidationError.is(error)).toBe(true);
      expect((error as Error).message).toContain("AWS_BEARER_TOKEN_BEDROCK");
      expect((error as Error).message).toContain("apiKey");
      expect((error as ValidationError).issues[0]!.path).toBe("apiKey");
    }
    expect(requests).toHaveLength(0);
  });

  it("no credentials at all: a ValidationError naming both ways", () => {
    expect(() => bedrock({ region: "us-east-1", model: CLAUDE, api: "converse", ...quiet })).toThrow(
      /credentials.*apiKey.*AWS_BEARER_TOKEN_BEDROCK/,
    );
  });

  it("sigv4 without (complete) credentials is refused field by field", () => {
    expect(() =>
      bedrock({ region: "us-east-1", model: CLAUDE, api: "converse", auth: "sigv4", ...quiet }),
    ).toThrow(/credentials/);
    let error: unknown;
    try {
      bedrock({
        region: "us-east-1",
        model: CLAUDE,
        api: "converse",
        credentials: { accessKeyId: "", secretAccessKey: " " },
        ...quiet,
      });
    } catch (caught) {
      error = caught;
    }
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
      "credentials.accessKeyId",
      "credentials.secretAccessKey",
    ]);
  });

  it("invoke takes Claude models only, and says to use converse", () => {
    expect(() =>
      bedrock({
        region: "us-east-1",
        model: "amazon.nova-pro-v1:0",
        api: "invoke",
        apiKey: BEARER,
        ...quiet,
      }),
    ).toThrow(/api: "converse"/);
    // An application inference profile of a Claude model: allowed once the caller says so.
    const arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123";
    expect(() =>
      bedrock({ region: "us-east-1", model: arn, api: "invoke", apiKey: BEARER, ...quiet }),
    ).toThrow(ValidationError);
    expect(
      bedrock({
        region: "us-east-1",
        model: arn,
        api: "invoke",
        apiKey: BEARER,
        profile: anthropicModelProfile("claude-sonnet-4-5"),
        ...quiet,
      }).protocol,
    ).toBe("anthropic-messages");
  });

  it("region, api and model are checked", () => {
    const base = { model: CLAUDE, apiKey: BEARER, ...quiet };
    expect(() => bedrock({ ...base, api: "converse" } as BedrockSettings)).toThrow(/region/);
    expect(() => bedrock({ ...base, api: "converse", region: "us-east-1.evil.com/x" })).toThrow(/region/);
    expect(() => bedrock({ ...base, region: "us-east-1" } as BedrockSettings)).toThrow(/api/);
    expect(() => bedrock({ ...base, api: "converse", region: "us-east-1", model: "" })).toThrow(/model/);
    expect(() => bedrock({ ...base, api: "converse", endpoint: "not a url" })).toThrow(/endpoint/);
    // Bearer auth against a custom endpoint needs no region; SigV4 always does.
    expect(bedrock({ ...base, api: "converse", endpoint: "http://localhost:8080" }).name).toBe("bedrock");
    expect(() =>
      bedrock({
        model: CLAUDE,
        api: "converse",
        endpoint: "http://localhost:8080",
        credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
        ...quiet,
      }),
    ).toThrow(/region/);
  });

  it("logs the choice once per provider, never a credential", async () => {
    const lines: string[] = [];
    const { fetch } = fakeFetch(() => json(CONVERSE_JSON));
    const logger = (line: string) => lines.push(line);
    const sigv4 = bedrock({
      region: "eu-west-1",
      model: CLAUDE,
      api: "converse",
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, sessionToken: SESSION_TOKEN },
      apiKey: BEARER,
      fetch,
      logger,
    });
    await sigv4.complete(HISTORY);
    await sigv4.complete(HISTORY);
    bedrock({
      region: "eu-west-1",
      model: CLAUDE,
      api: "converse",
      env: { AWS_BEARER_TOKEN_BEDROCK: BEARER },
      logger,
    });
    bedrock({ region: "eu-west-1", model: CLAUDE, api: "converse", auth: "bearer", apiKey: BEARER, logger });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/SigV4 with credentials from settings with a session token/);
    expect(lines[0]).toMatch(/auth: "bearer"/);
    expect(lines[1]).toMatch(/bearer API key from env\.AWS_BEARER_TOKEN_BEDROCK/);
    expect(lines[2]).toMatch(/^modelwire bedrock converse .*: auth = bearer API key from settings\.apiKey$/);
    for (const line of lines) {
      for (const secret of [ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, BEARER])
        expect(line).not.toContain(secret);
    }
  });

  it("prints nothing by default: no logger, no console output", async () => {
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => {}),
    );
    try {
      const { fetch } = fakeFetch(() => json(CONVERSE_JSON));
      const provider = bedrock({
        region: "us-east-1",
        model: CLAUDE,
        api: "converse",
        apiKey: BEARER,
        fetch,
      });
      await provider.complete(HISTORY);
      await provider.complete(HISTORY);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe("bedrock(): URLs and bearer auth", () => {
  it("builds the four URLs, with the model id URL-encoded", async () => {
    const { fetch, requests } = fakeFetch((request) =>
      request.url.endsWith("-stream")
        ? eventStream(
            request.url.includes("converse")
              ? converseFrames(CONVERSE_EVENTS)
              : invokeFrames(THINKING_TOOL_EVENTS),
          )
        : json(request.url.endsWith("/converse") ? CONVERSE_JSON : invokeMessageJson(THINKING_TOOL_EVENTS)),
    );
    for (const api of ["invoke", "converse"] as const) {
      const provider = bedrock({ region: "us-west-2", model: CLAUDE, api, apiKey: BEARER, fetch, ...quiet });
      await provider.complete(HISTORY);
      await collectStream(provider.stream(HISTORY));
    }
    const host =
      "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0";
    expect(requests.map((request) => request.url)).toEqual([
      `${host}/invoke`,
      `${host}/invoke-with-response-stream`,
      `${host}/converse`,
      `${host}/converse-stream`,
    ]);
    for (const request of requests) {
      expect(request.method).toBe("POST");
      expect(request.headers.get("authorization")).toBe(`Bearer ${BEARER}`);
      expect(request.headers.get("content-type")).toBe("application/json");
    }
    expect(requests[0]!.headers.get("accept")).toBe("application/json");
    expect(requests[1]!.headers.get("x-amzn-bedrock-accept")).toBe("application/json");
  });

  it("inference-profile ARNs and a custom endpoint (VPC, local)", async () => {
    const arn =
      "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const { fetch, requests } = fakeFetch(() => json(CONVERSE_JSON));
    const provider = bedrock({
      model: arn,
      api: "converse",
      endpoint: "https://vpce-0abc.bedrock-runtime.us-east-1.vpce.amazonaws.com/proxy/",
      env: { AWS_BEARER_TOKEN_BEDROCK: BEARER },
      fetch,
      ...quiet,
    });
    await provider.complete(HISTORY);
    expect(requests[0]!.url).toBe(
      "https://vpce-0abc.bedrock-runtime.us-east-1.vpce.amazonaws.com/proxy/model/" +
        "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
    );
    expect(encodeModelId("a!b'c(d)e*f~g.h_i-j")).toBe("a%21b%27c%28d%29e%2Af~g.h_i-j");
  });

  it("apiKey wins over env; user headers never override the auth header", async () => {
    const { fetch, requests } = fakeFetch(() => json(CONVERSE_JSON));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "converse",
      apiKey: BEARER,
      env: { AWS_BEARER_TOKEN_BEDROCK: "other-key-from-env-000000" },
      headers: { Authorization: "Bearer spoofed", "x-trace": "1" },
      fetch,
      ...quiet,
    });
    await provider.complete(HISTORY);
    expect(requests[0]!.headers.get("authorization")).toBe(`Bearer ${BEARER}`);
    expect(requests[0]!.headers.get("x-trace")).toBe("1");
  });
});
