import { describe, expect, it, vi } from "vitest";
import { type ProviderFactory, protocolOf } from "../../src/substrate/index.ts";
import { FakeProvider } from "../../src/testing.ts";

describe("protocolOf", () => {
  it("an absent or empty value is the documented default, and stays quiet", () => {
    const warn = vi.fn();
    for (const value of [undefined, null, "", "   "]) expect(protocolOf(value, { warn })).toBe("openai-chat");
    expect(protocolOf(undefined, { warn, default: "anthropic" })).toBe("anthropic");
    expect(warn).not.toHaveBeenCalled();
  });

  it("returns known names, in any case and with surrounding blanks, quietly", () => {
    const warn = vi.fn();
    expect(protocolOf("anthropic", { warn })).toBe("anthropic");
    expect(protocolOf("openai-chat", { warn })).toBe("openai-chat");
    expect(protocolOf("openai-responses", { warn })).toBe("openai-responses");
    expect(protocolOf("bedrock", { warn })).toBe("bedrock");
    expect(protocolOf(" Anthropic ", { warn })).toBe("anthropic");
    expect(warn).not.toHaveBeenCalled();
  });

  it("accepts the wire-protocol names of Provider.protocol", () => {
    expect(protocolOf("anthropic-messages")).toBe("anthropic");
    expect(protocolOf("bedrock-converse")).toBe("bedrock");
  });

  it("a misspelt name is reported once with the closest known name, and gives undefined (anthropc → anthropic)", () => {
    const warn = vi.fn();
    expect(protocolOf("anthropc", { warn })).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toBe(
      'modelwire: unknown protocol "anthropc"; did you mean "anthropic"? (known protocols: anthropic, openai-chat, openai-responses, bedrock, google-gemini, vertex)',
    );
  });

  it("suggests the closest name for other typos and prefixes", () => {
    const suggestion = (value: string) => {
      let message = "";
      protocolOf(value, { warn: (text) => (message = text) });
      return /did you mean "([^"]+)"/.exec(message)?.[1];
    };
    expect(suggestion("openai")).toBe("openai-chat");
    expect(suggestion("open-ai-chat")).toBe("openai-chat");
    expect(suggestion("openai-response")).toBe("openai-responses");
    expect(suggestion("bedrok")).toBe("bedrock");
    expect(suggestion("anthropic-message")).toBe("anthropic");
    expect(suggestion("mistral")).toBeUndefined();
  });

  it("a value of the wrong type is reported and gives undefined", () => {
    for (const value of [42, true, ["anthropic"], { name: "anthropic" }, Symbol("x")]) {
      const warn = vi.fn();
      expect(protocolOf(value, { warn })).toBeUndefined();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(
        /^modelwire: protocol must be a string, got .+ \(known protocols: /,
      );
    }
  });

  it("prints nothing without a warn option (the library does not talk unless asked)", () => {
    const spies = (["log", "info", "warn", "error"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => {}),
    );
    try {
      expect(protocolOf("anthropc")).toBeUndefined();
      expect(protocolOf(42)).toBeUndefined();
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("never resolves Object.prototype names", () => {
    expect(protocolOf("constructor", { warn: () => {} })).toBeUndefined();
    expect(protocolOf("__proto__", { warn: () => {} })).toBeUndefined();
  });
});

describe("protocolOf: the registered names", () => {
  const mistral: ProviderFactory = {
    schema: {},
    aliases: ["mistral-chat"],
    build: (config) => new FakeProvider({ model: config.model }),
  };

  it("knows the names and aliases the host's factories register, in any case", () => {
    const warn = vi.fn();
    expect(protocolOf("mistral", { factories: { mistral }, warn })).toBe("mistral");
    expect(protocolOf(" Mistral ", { factories: { mistral }, warn })).toBe("mistral");
    expect(protocolOf("mistral-chat", { factories: { mistral }, warn })).toBe("mistral");
    expect(protocolOf("anthropic", { factories: { mistral }, warn })).toBe("anthropic");
    expect(warn).not.toHaveBeenCalled();
  });

  it("a typo of a registered outside protocol gets the suggestion too, and the known list names it", () => {
    const warn = vi.fn();
    expect(protocolOf("mistrl", { factories: { mistral }, warn })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      'modelwire: unknown protocol "mistrl"; did you mean "mistral"? (known protocols: anthropic, openai-chat, openai-responses, bedrock, google-gemini, vertex, mistral)',
    );
  });

  it("a name nobody registered says how to register it; a name the host removed is unknown", () => {
    const warn = vi.fn();
    expect(protocolOf("mistral", { warn })).toBeUndefined();
    expect(warn.mock.calls[0]![0]).toContain('createProvider(config, { factories: { "mistral": … } })');
    expect(protocolOf("bedrock", { factories: { bedrock: undefined }, warn })).toBeUndefined();
    expect(warn.mock.calls[1]![0]).toContain(
      "(known protocols: anthropic, openai-chat, openai-responses, google-gemini, vertex; one not built in",
    );
  });

  it("an absent protocol is the default only while the default is registered", () => {
    const warn = vi.fn();
    expect(protocolOf(undefined, { factories: { "openai-chat": undefined }, warn })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      'modelwire: no protocol given, and the default "openai-chat" is not registered (known protocols: anthropic, openai-responses, bedrock, google-gemini, vertex)',
    );
    expect(protocolOf("", { factories: { mistral }, default: "mistral" })).toBe("mistral");
  });
});
