/**
 * The reasoning envelope (`mw1.` + base64url of `{route, native}`): a native turn survives the round trip
 * whatever it holds (unicode, lone surrogates, megabytes of signature); a damaged or foreign value is no
 * envelope; `nativeFromEnvelopes` gives the native back only for the same route and says why otherwise.
 */
import { describe, expect, it } from "vitest";
import type { Native } from "../../src/core/message.ts";
import {
  ENVELOPE_PREFIX,
  isEnvelope,
  nativeFromEnvelopes,
  unwrapReasoning,
  wrapReasoning,
} from "../../src/worker/reasoning-envelope.ts";

const NATIVE: Native = {
  protocol: "anthropic-messages",
  origin: "anthropic",
  model: "claude-sonnet-4-5",
  blocks: [
    {
      type: "thinking",
      thinking: "Ünïcödé thinking: 日本語, emoji 🧠👩‍💻, RTL עברית",
      signature: "EqQBCkYIBxgCKkB+/==",
    },
    { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
    {
      type: "tool_use",
      id: "toolu_01",
      name: "Read",
      input: { path: "a/b.ts", nested: [1, null, true, { x: "y" }] },
    },
  ],
};

/** base64url of a UTF-8 text, written independently of src/ (for hand-made envelopes). */
function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

describe("wrapReasoning / unwrapReasoning", () => {
  it("round trip: the same route and native, unicode included", () => {
    const wrapped = wrapReasoning({ route: "claude", native: NATIVE });
    expect(wrapped.startsWith(ENVELOPE_PREFIX)).toBe(true);
    expect(isEnvelope(wrapped)).toBe(true);
    expect(unwrapReasoning(wrapped)).toEqual({ route: "claude", native: NATIVE });
  });

  it("the text is the prefix then base64url without padding, and decodes to the documented JSON", () => {
    const wrapped = wrapReasoning({ route: "claude", native: NATIVE });
    const body = wrapped.slice(ENVELOPE_PREFIX.length);
    expect(body).toMatch(/^[A-Za-z0-9_-]+$/);
    const standard = body.replaceAll("-", "+").replaceAll("_", "/");
    const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
    const json = new TextDecoder().decode(Uint8Array.from(binary, (character) => character.charCodeAt(0)));
    expect(JSON.parse(json)).toEqual({ route: "claude", native: NATIVE });
  });

  it("blocks of every size: a lone surrogate, megabytes of signature, thousands of blocks", () => {
    const natives: Native[] = [
      { ...NATIVE, blocks: [{ type: "thinking", thinking: "half a pair: \ud83d", signature: "s" }] },
      { ...NATIVE, blocks: [{ type: "thinking", thinking: "x", signature: "A".repeat(3 * 1024 * 1024) }] },
      {
        ...NATIVE,
        blocks: Array.from({ length: 5000 }, (_, index) => ({ type: "text", text: `block ${index} ✓` })),
      },
      { ...NATIVE, blocks: [] },
    ];
    for (const native of natives) {
      expect(unwrapReasoning(wrapReasoning({ route: "r", native }))).toEqual({ route: "r", native });
    }
    // Every length of the JSON mod 3 (padding 0, 1 and 2 characters left out).
    for (const route of ["a", "ab", "abc"]) {
      expect(unwrapReasoning(wrapReasoning({ route, native: NATIVE }))?.route).toBe(route);
    }
  });

  it("a native's other fields are not carried: only protocol, origin, model and blocks", () => {
    const extra = { ...NATIVE, secret: "not carried" } as Native;
    const unwrapped = unwrapReasoning(wrapReasoning({ route: "r", native: extra }));
    expect(unwrapped?.native).toEqual(NATIVE);
  });

  describe("a damaged value is no envelope", () => {
    const good = wrapReasoning({ route: "claude", native: NATIVE });
    const body = good.slice(ENVELOPE_PREFIX.length);
    const cases: [label: string, value: unknown][] = [
      ["bad base64 characters", `${ENVELOPE_PREFIX}${body.slice(0, 10)}$%${body.slice(12)}`],
      [
        "standard base64 (+ and /) instead of base64url",
        `${ENVELOPE_PREFIX}${base64url('{"route":"r"}??>>').replaceAll("-", "+").replaceAll("_", "/")}+/`,
      ],
      ["padding", `${good}==`],
      ["a length no base64 has", `${good.slice(0, ENVELOPE_PREFIX.length + 1)}`],
      ["cut short", good.slice(0, good.length - 7)],
      ["not UTF-8", `${ENVELOPE_PREFIX}${btoa("\xff\xfe\xfd").replace(/=+$/, "")}`],
      ["not JSON", `${ENVELOPE_PREFIX}${base64url("route=claude")}`],
      ["JSON null", `${ENVELOPE_PREFIX}${base64url("null")}`],
      ["a JSON array", `${ENVELOPE_PREFIX}${base64url("[1,2]")}`],
      ["no route", `${ENVELOPE_PREFIX}${base64url(JSON.stringify({ native: NATIVE }))}`],
      [
        "a route that is not text",
        `${ENVELOPE_PREFIX}${base64url(JSON.stringify({ route: 7, native: NATIVE }))}`,
      ],
      ["no native", `${ENVELOPE_PREFIX}${base64url(JSON.stringify({ route: "claude" }))}`],
      ["native null", `${ENVELOPE_PREFIX}${base64url(JSON.stringify({ route: "claude", native: null }))}`],
      [
        "blocks not a list",
        `${ENVELOPE_PREFIX}${base64url(JSON.stringify({ route: "claude", native: { ...NATIVE, blocks: {} } }))}`,
      ],
      [
        "no model",
        `${ENVELOPE_PREFIX}${base64url(JSON.stringify({ route: "claude", native: { ...NATIVE, model: undefined } }))}`,
      ],
      [
        "a protocol that is not text",
        `${ENVELOPE_PREFIX}${base64url(JSON.stringify({ route: "claude", native: { ...NATIVE, protocol: 1 } }))}`,
      ],
      ["another prefix", `mw2.${body}`],
      ["the prefix in capitals", `MW1.${body}`],
      ["no prefix", body],
      ["empty", ENVELOPE_PREFIX],
      ["not a string", { route: "claude", native: NATIVE }],
      ["undefined", undefined],
    ];
    for (const [label, value] of cases) {
      it(label, () => {
        expect(unwrapReasoning(value)).toBeUndefined();
      });
    }
    it("and is still recognised as meant to be one by its prefix (so it is reported, not passed upstream)", () => {
      expect(isEnvelope(`${ENVELOPE_PREFIX}$$$`)).toBe(true);
      expect(isEnvelope("EqQBCkYIBxgCKkB")).toBe(false);
      expect(isEnvelope(42)).toBe(false);
    });
  });
});

describe("nativeFromEnvelopes", () => {
  const mine = wrapReasoning({ route: "claude", native: NATIVE });
  const other = wrapReasoning({
    route: "gpt",
    native: { ...NATIVE, protocol: "openai-responses", origin: "openai" },
  });
  const damaged = `${ENVELOPE_PREFIX}not-json-at-all`;

  it("the native of an envelope of the same route; values that are not envelopes are skipped in silence", () => {
    const warnings: string[] = [];
    expect(
      nativeFromEnvelopes(
        ["EqQBCkYIBxgCKkBrealSignature==", undefined, mine],
        "claude",
        "input[3]",
        warnings,
      ),
    ).toEqual(NATIVE);
    expect(warnings).toEqual([]);
  });

  it("a damaged envelope: undefined and a warning naming where", () => {
    const warnings: string[] = [];
    expect(nativeFromEnvelopes([damaged], "claude", "messages[1].content[0]", warnings)).toBeUndefined();
    expect(warnings).toEqual(["messages[1].content[0]: carried reasoning that cannot be read; left out"]);
  });

  it("an envelope of another route: undefined and a warning naming both routes", () => {
    const warnings: string[] = [];
    expect(nativeFromEnvelopes([other], "claude", "input[2]", warnings)).toBeUndefined();
    expect(warnings).toEqual([
      'input[2]: reasoning carried from route "gpt" does not replay on route "claude"; left out',
    ]);
  });

  it("several: the first of the route wins, each unusable one is reported, warnings are appended", () => {
    const second = wrapReasoning({ route: "claude", native: { ...NATIVE, model: "claude-opus-4-1" } });
    const warnings = ["an earlier warning"];
    expect(nativeFromEnvelopes([damaged, other, mine, second], "claude", "input[0]", warnings)).toEqual(
      NATIVE,
    );
    expect(warnings).toEqual([
      "an earlier warning",
      "input[0]: carried reasoning that cannot be read; left out",
      'input[0]: reasoning carried from route "gpt" does not replay on route "claude"; left out',
    ]);
  });

  it("none at all: undefined, no warning", () => {
    const warnings: string[] = [];
    expect(nativeFromEnvelopes([], "claude", "x", warnings)).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});
