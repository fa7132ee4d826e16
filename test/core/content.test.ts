/** Content parts: what the schema takes and refuses (naming the field), and the helpers over content. */
import { describe, expect, it } from "vitest";
import { contentText, inlineUrlParts, parseMessages, ValidationError } from "../../src/index.ts";
import { contentParts, hasMedia, isBase64, parseDataUrl } from "../../src/protocols/index.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";

function issues(value: unknown) {
  try {
    parseMessages(value);
  } catch (error) {
    expect(ValidationError.is(error)).toBe(true);
    return (error as ValidationError).issues.map((issue) => issue.path);
  }
  throw new Error("expected a ValidationError");
}

describe("content parts in messages", () => {
  it("takes text, inline and URL images, inline and URL files, in user messages and tool results", () => {
    const [user, tool] = parseMessages([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image", mediaType: "image/png", data: PNG },
          { type: "image", url: "https://example.com/cat.jpg" },
          { type: "file", mediaType: "application/pdf", data: "JVBERi0xLjQ=", filename: "invoice.pdf" },
          { type: "file", url: "https://example.com/paper.pdf", mediaType: "application/pdf" },
        ],
      },
      {
        role: "tool",
        toolResults: [{ callId: "c1", content: [{ type: "image", mediaType: "image/png", data: PNG }] }],
      },
    ]);
    expect(Array.isArray(user!.content) && user!.content).toHaveLength(5);
    expect(tool!.toolResults[0]!.content).toEqual([{ type: "image", mediaType: "image/png", data: PNG }]);
  });

  it("reads a base64 data: URL as inline data, so every protocol sees one form", () => {
    const [message] = parseMessages([
      { role: "user", content: [{ type: "image", url: `data:image/png;base64,${PNG}` }] },
    ]);
    expect(message!.content).toEqual([{ type: "image", mediaType: "image/png", data: PNG }]);
  });

  it("a bad media type or base64 is a ValidationError naming the field", () => {
    expect(issues([{ role: "user", content: [{ type: "image", mediaType: "png", data: PNG }] }])).toContain(
      "messages[0].content[0].mediaType",
    );
    expect(
      issues([{ role: "user", content: [{ type: "image", mediaType: "application/pdf", data: PNG }] }]),
    ).toContain("messages[0].content[0].mediaType");
    for (const data of ["not base64!", "abc", "iVBOR w0KGgo=", "iVBORw0KGgo-_"]) {
      expect(
        issues([{ role: "user", content: [{ type: "image", mediaType: "image/png", data }] }]),
      ).toContain("messages[0].content[0].data");
    }
    expect(
      issues([{ role: "user", content: [{ type: "image", url: "ftp://example.com/x.png" }] }]),
    ).toContain("messages[0].content[0].url");
    expect(
      issues([{ role: "user", content: [{ type: "video", url: "https://example.com/x.mp4" }] }]),
    ).toContain("messages[0].content[0].type");
  });

  it("contentText, contentParts, hasMedia, isBase64, parseDataUrl", () => {
    const parts = [
      { type: "text" as const, text: "a" },
      { type: "image" as const, url: "https://x.test/i.png" },
      { type: "text" as const, text: "b" },
    ];
    expect(contentText(parts)).toBe("ab");
    expect(contentText("plain")).toBe("plain");
    expect(contentText(undefined)).toBe("");
    expect(contentParts("hi")).toEqual([{ type: "text", text: "hi" }]);
    expect(contentParts("")).toEqual([]);
    expect(hasMedia(parts)).toBe(true);
    expect(hasMedia("text")).toBe(false);
    expect(isBase64(PNG)).toBe(true);
    expect(isBase64("YQ")).toBe(false);
    expect(parseDataUrl("data:text/plain;base64,aGk=")).toEqual({ mediaType: "text/plain", data: "aGk=" });
    expect(parseDataUrl("data:text/plain,hi")).toBeUndefined();
  });
});

describe("inlineUrlParts", () => {
  const fetchOf = (
    body: Uint8Array,
    headers: Record<string, string> = { "content-type": "image/png" },
    status = 200,
  ) => (async () => new Response(body as BodyInit, { status, headers })) as unknown as typeof fetch;

  it("downloads URL parts into inline base64, with the media type of the response", async () => {
    const bytes = Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0));
    const content = await inlineUrlParts(
      [
        { type: "text", text: "see" },
        { type: "image", url: "https://x.test/a.png" },
      ],
      { fetch: fetchOf(bytes) },
    );
    expect(content).toEqual([
      { type: "text", text: "see" },
      { type: "image", mediaType: "image/png", data: PNG },
    ]);
  });

  it("refuses a download over maxBytes, and an answer that is not 2xx, naming the part", async () => {
    const big = new Uint8Array(2048);
    await expect(
      inlineUrlParts([{ type: "file", url: "https://x.test/big.pdf", mediaType: "application/pdf" }], {
        fetch: fetchOf(big),
        maxBytes: 1024,
      }),
    ).rejects.toThrow(/content\[0\]: the download is larger than 1024 bytes/);
    await expect(
      inlineUrlParts([{ type: "image", url: "https://x.test/gone.png" }], {
        fetch: fetchOf(new Uint8Array(), {}, 404),
      }),
    ).rejects.toThrow(/content\[0\]: downloading "https:\/\/x.test\/gone.png" answered 404/);
  });
});

describe("base64 checks scale to real photos and never throw", () => {
  it("isBase64 over 6 million characters (a ~4.5 MB image) is linear, not a stack overflow", () => {
    expect(isBase64("A".repeat(6_000_000))).toBe(true);
    expect(isBase64(`${"A".repeat(6_000_000)}AA==`)).toBe(true);
    expect(isBase64(`${"A".repeat(5_999_999)}-`)).toBe(false);
  });

  it("padding only at the end, at most two, and the length a multiple of four", () => {
    for (const good of ["", "QQ==", "QUI=", "QUJD", "+/+/"]) expect(isBase64(good), good).toBe(true);
    for (const bad of ["Q", "QQ=", "Q===", "====", "QQ=A", "Q=Q=", "QU JD", "QUJD\n", "QU_D"]) {
      expect(isBase64(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("a stored history with a large photo converts; a part that cannot be read is refused, not thrown", async () => {
    const { contentOf } = await import("../../src/protocols/stored-history.ts");
    const warnings: string[] = [];
    const data = "A".repeat(6_000_000);
    expect(
      contentOf([{ type: "image", mediaType: "image/png", data }], "messages[0].content", warnings),
    ).toEqual([{ type: "image", mediaType: "image/png", data }]);
    const hostile = {
      type: "image",
      get url(): string {
        throw new Error("revoked");
      },
    };
    expect(contentOf([hostile], "messages[0].content", warnings)).toEqual([{ type: "text", text: "" }]);
    expect(warnings).toEqual([
      "messages[0].content[0]: not a valid content part (could not be read (revoked)); left out",
    ]);
  });
});

describe("URLs in errors and refusals", () => {
  it("show scheme, host and path only: no credentials of a pre-signed URL, no user info", async () => {
    const { shownUrl } = await import("../../src/core/content.ts");
    const signed =
      "https://bucket.s3.amazonaws.com/a/b.pdf?X-Amz-Credential=AKIAEXAMPLE123%2F20261201&X-Amz-Signature=abc";
    expect(shownUrl(signed)).toBe('"https://bucket.s3.amazonaws.com/a/b.pdf?…"');
    expect(shownUrl("https://user:secret-pass@host.test/x.png")).toBe('"https://host.test/x.png"');
    expect(shownUrl("gs://bucket/obj.png")).toBe('"gs://bucket/obj.png"');
    expect(shownUrl("not a url at all")).toBe('"…"');
    expect(shownUrl(`https://host.test/${"p".repeat(300)}`)).toHaveLength(122);
  });

  it("a refused OpenAI Chat file URL names the part without the URL's query", async () => {
    const { convertToOpenAIChatMessages } = await import(
      "../../src/protocols/openai-chat/convert-to-openai-chat-messages.ts"
    );
    const { openAIChatEndpointProfile } = await import("../../src/providers/openai-chat.ts");
    const signed =
      "https://bucket.s3.amazonaws.com/a.pdf?X-Amz-Credential=AKIAEXAMPLE123&X-Amz-Signature=abc";
    const { refused } = convertToOpenAIChatMessages(
      [{ role: "user", content: [{ type: "file", url: signed, mediaType: "application/pdf" }] }],
      { model: "gpt-4o", profile: openAIChatEndpointProfile("openai") },
    );
    expect(refused?.[0]?.path).toBe("messages[0].content[0]");
    expect(JSON.stringify(refused)).not.toContain("AKIAEXAMPLE123");
    expect(JSON.stringify(refused)).not.toContain("X-Amz");
  });
});
