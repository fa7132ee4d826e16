/** bedrock(): requests signed with SigV4 through aws4fetch, checked against a reference signer. */
import { AwsV4Signer } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { collectStream } from "../../src/index.ts";
import { bedrock, encodeModelId } from "../../src/providers/bedrock.ts";
import { converseFrames, invokeFrames } from "../helpers/bedrock-frames.ts";
import { parseAuthorization, referenceSigV4 } from "../helpers/sigv4-reference.ts";
import {
  ACCESS_KEY,
  CLAUDE,
  CONVERSE_EVENTS,
  eventStream,
  fakeFetch,
  HISTORY,
  quiet,
  SECRET_KEY,
  SESSION_TOKEN,
  THINKING_TOOL_EVENTS,
} from "./bedrock.helpers.ts";

describe("SigV4 through aws4fetch", () => {
  it("AWS's published get-vanilla vector, with a fixed clock", async () => {
    const signer = new AwsV4Signer({
      method: "GET",
      url: "https://example.amazonaws.com/",
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      service: "service",
      region: "us-east-1",
      datetime: "20150830T123600Z",
    });
    const signed = await signer.sign();
    expect(signed.headers.get("authorization")).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, " +
        "SignedHeaders=host;x-amz-date, " +
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
    // The reference implementation used below agrees with the published vector too.
    const reference = await referenceSigV4({
      method: "GET",
      url: "https://example.amazonaws.com/",
      headers: { "x-amz-date": "20150830T123600Z" },
      body: "",
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      region: "us-east-1",
      service: "service",
      amzDate: "20150830T123600Z",
      signedHeaders: ["host", "x-amz-date"],
    });
    expect(reference.signature).toBe("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  });

  it("a bedrock POST with a fixed clock: double-encoded canonical URI, session token signed", async () => {
    const url =
      "https://bedrock-runtime.us-east-1.amazonaws.com/model/" +
      `${encodeModelId("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0")}/converse`;
    const body = JSON.stringify({ messages: [{ role: "user", content: [{ text: "hi" }] }] });
    const signer = new AwsV4Signer({
      method: "POST",
      url,
      headers: { "content-type": "application/json" },
      body,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      sessionToken: SESSION_TOKEN,
      service: "bedrock",
      region: "us-east-1",
      datetime: "20250102T030405Z",
    });
    const canonical = await signer.canonicalString();
    expect(canonical.split("\n")[1]).toBe(
      "/model/arn%253Aaws%253Abedrock%253Aus-east-1%253A123456789012%253Ainference-profile%252Fus.anthropic.claude-sonnet-4-5-20250929-v1%253A0/converse",
    );
    const signed = await signer.sign();
    const authorization = signed.headers.get("authorization")!;
    const parts = parseAuthorization(authorization);
    expect(parts.signedHeaders).toEqual(["host", "x-amz-date", "x-amz-security-token"]);
    const reference = await referenceSigV4({
      method: "POST",
      url,
      headers: signed.headers,
      body,
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      region: "us-east-1",
      service: "bedrock",
      amzDate: "20250102T030405Z",
      signedHeaders: parts.signedHeaders,
    });
    expect(reference.canonicalRequest).toBe(canonical);
    expect(authorization).toBe(reference.authorization);
  });

  for (const api of ["invoke", "converse"] as const) {
    it(`bedrock(${api}) signs what it sends: the Authorization header recomputed independently matches`, async () => {
      const { fetch, requests } = fakeFetch((request) =>
        eventStream(
          request.url.includes("converse")
            ? converseFrames(CONVERSE_EVENTS)
            : invokeFrames(THINKING_TOOL_EVENTS),
        ),
      );
      const provider = bedrock({
        region: "ap-southeast-2",
        model: CLAUDE,
        api,
        credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, sessionToken: SESSION_TOKEN },
        headers: { "x-amzn-bedrock-trace": "ENABLED", "X-Custom": "  spaced   value " },
        fetch,
        ...quiet,
      });
      await collectStream(provider.stream(HISTORY, [{ name: "weather", parameters: { type: "object" } }]));
      const request = requests[0]!;
      expect(request.url).toContain("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/");
      const amzDate = request.headers.get("x-amz-date")!;
      expect(amzDate).toMatch(/^\d{8}T\d{6}Z$/);
      expect(request.headers.get("x-amz-security-token")).toBe(SESSION_TOKEN);
      const authorization = request.headers.get("authorization")!;
      const parts = parseAuthorization(authorization);
      expect(parts.credential).toBe(
        `${ACCESS_KEY}/${amzDate.slice(0, 8)}/ap-southeast-2/bedrock/aws4_request`,
      );
      expect(parts.signedHeaders).toEqual(
        expect.arrayContaining(["host", "x-amz-date", "x-amz-security-token", "x-custom"]),
      );
      const reference = await referenceSigV4({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: request.body,
        accessKeyId: ACCESS_KEY,
        secretAccessKey: SECRET_KEY,
        region: "ap-southeast-2",
        service: "bedrock",
        amzDate,
        signedHeaders: parts.signedHeaders,
      });
      expect(reference.canonicalRequest.split("\n")[1]).toContain("v1%253A0");
      expect(authorization).toBe(reference.authorization);
    });
  }
});
