/**
 * The rule a stream assembler keeps deltas it does not know by (src/protocols/merge-unknown-delta.ts):
 * accumulated where they can be, kept verbatim otherwise, and reported — never dropped or mangled in silence.
 */
import { describe, expect, it } from "vitest";
import { mergeUnknownDelta } from "../../src/protocols/merge-unknown-delta.ts";

describe("mergeUnknownDelta", () => {
  it("a compaction block's content: the delta's summary onto the block's null", () => {
    const block: Record<string, unknown> = { type: "compaction", content: null };
    const warnings: string[] = [];
    mergeUnknownDelta(block, { type: "compaction_delta", content: "The user asked…" }, warnings, "block 0");
    expect(block).toStrictEqual({ type: "compaction", content: "The user asked…" });
    expect(warnings).toEqual([]);
  });

  it("strings onto strings are appended, in order; the delta's own type is not content", () => {
    const block: Record<string, unknown> = { type: "future", note: "" };
    const warnings: string[] = [];
    for (const piece of ["a", "b", "c"])
      mergeUnknownDelta(block, { type: "note_delta", note: piece }, warnings, "b");
    expect(block).toStrictEqual({ type: "future", note: "abc" });
    expect(warnings).toEqual([]);
  });

  it("new fields are taken, arrays appended, objects merged field by field, equal values left alone", () => {
    const block: Record<string, unknown> = { type: "x", items: [1], meta: { kind: "k", text: "a" }, n: 3 };
    const warnings: string[] = [];
    mergeUnknownDelta(
      block,
      { type: "x_delta", items: [2, 3], meta: { text: "b", extra: true }, n: 3, added: { deep: [1] } },
      warnings,
      "x block 0",
    );
    expect(block).toStrictEqual({
      type: "x",
      items: [1, 2, 3],
      meta: { kind: "k", text: "ab", extra: true },
      n: 3,
      added: { deep: [1] },
    });
    expect(warnings).toEqual([]);
  });

  it("what cannot be merged replaces the value and is reported once, with its path", () => {
    const block: Record<string, unknown> = { type: "x", count: 1, meta: { text: "a" }, list: [1] };
    const warnings: string[] = [];
    const label = "x block 4: x_delta";
    mergeUnknownDelta(
      block,
      { type: "x_delta", count: 2, meta: { text: 5 }, list: "no longer a list" },
      warnings,
      label,
    );
    mergeUnknownDelta(block, { type: "x_delta", count: 3 }, warnings, label);
    expect(block).toStrictEqual({ type: "x", count: 3, meta: { text: 5 }, list: "no longer a list" });
    expect(warnings).toEqual([
      "x block 4: x_delta replaced count",
      "x block 4: x_delta replaced meta.text",
      "x block 4: x_delta replaced list",
    ]);
  });
});
