/** Reading stored content as text or checked parts, and writing it as blocks or as text only. */
import { describe, expect, it } from "vitest";
import { assistantTextOf, contentBlocksOf, textOnlyOf } from "../../src/protocols/neutral-blocks.ts";
import { contentOf, orphanResultText } from "../../src/protocols/stored-history.ts";

const PNG = "iVBORw0KGgo=";

describe("contentOf", () => {
  it("keeps text, reads scalars as text, and warns on anything else", () => {
    const warnings: string[] = [];
    expect(contentOf("hi", "messages[0].content", warnings)).toBe("hi");
    expect(contentOf(12n, "messages[0].content", warnings)).toBe("12");
    expect(contentOf(null, "messages[0].content", warnings)).toBe("");
    expect(warnings).toEqual([]);
    expect(contentOf({ text: "x" }, "messages[3].content", warnings)).toBe("");
    expect(warnings).toEqual(["messages[3].content: content is not text or a list of parts; left out"]);
  });

  it("checks each part: valid parts kept (data: URLs read as inline), strings as text, bad ones named and left out", () => {
    const warnings: string[] = [];
    const parts = contentOf(
      [
        "plain",
        { type: "image", url: `data:image/png;base64,${PNG}` },
        { type: "image", mediaType: "image/png", data: "not base64!" },
        { type: "file", url: "https://example.com/a.pdf", filename: "a.pdf" },
        { type: "video", url: "https://example.com/v.mp4" },
        42,
      ],
      "messages[1].content",
      warnings,
    );
    // A dropped part leaves blank text in its place (sent nowhere), so later parts keep their paths.
    expect(parts).toEqual([
      { type: "text", text: "plain" },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "text", text: "" },
      { type: "file", url: "https://example.com/a.pdf", filename: "a.pdf" },
      { type: "text", text: "" },
      { type: "text", text: "" },
    ]);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/^messages\[1\]\.content\[2\]/);
    expect(warnings[1]).toMatch(/^messages\[1\]\.content\[4\]/);
    expect(warnings[2]).toMatch(/^messages\[1\]\.content\[5\]: not a valid content part/);
  });
});

describe("writing content", () => {
  type Block = { text?: string; image?: string };
  const writer = (refused: string[]) => ({
    text: (text: string): Block => ({ text }),
    part: (part: { type: string }, where: string): Block | undefined => {
      if (part.type === "file") {
        refused.push(where);
        return undefined;
      }
      return { image: where };
    },
  });

  it("contentBlocksOf: text blocks without the blank ones, parts through the writer with their path", () => {
    const refused: string[] = [];
    const blocks = contentBlocksOf(
      [
        { type: "text", text: "a" },
        { type: "text", text: "  " },
        { type: "image", url: "https://example.com/i.png" },
        { type: "file", mediaType: "application/pdf", data: PNG },
      ],
      "messages[2].content",
      writer(refused),
    );
    expect(blocks).toEqual([{ text: "a" }, { image: "messages[2].content[2]" }]);
    expect(refused).toEqual(["messages[2].content[3]"]);
    expect(contentBlocksOf(" ", "x", writer(refused))).toEqual([]);
  });

  it("textOnlyOf joins the text parts and warns for each other part with the reason", () => {
    const warnings: string[] = [];
    const text = textOnlyOf(
      [
        { type: "text", text: "see " },
        { type: "image", url: "https://example.com/i.png" },
        { type: "text", text: "above" },
      ],
      "messages[4].toolResults[0].content",
      warnings,
      "tool messages take text only",
    );
    expect(text).toBe("see above");
    expect(warnings).toEqual([
      "messages[4].toolResults[0].content[1]: tool messages take text only; the image is left out",
    ]);
  });

  it("assistantTextOf: an assistant's parts are its text, images warned", () => {
    const warnings: string[] = [];
    const content = [
      { type: "text", text: "x" },
      { type: "image", url: "https://example.com/i.png" },
    ];
    expect(assistantTextOf(content, 5, warnings)).toBe("x");
    expect(warnings).toEqual([
      "messages[5].content[1]: an assistant message takes text only; the image is left out",
    ]);
  });

  it("an orphan result keeps its parts behind the header", () => {
    const image = { type: "image" as const, url: "https://example.com/i.png" };
    expect(orphanResultText("c1", [image], false)).toEqual([
      { type: "text", text: "[tool result for call c1]" },
      image,
    ]);
    expect(orphanResultText("c1", "out", true)).toBe("[tool error result for call c1]\nout");
  });
});
