import { describe, expect, it } from "vitest";
import type { CallOptions, MessageInput } from "../../../src/index.ts";
import { anthropicModelProfile } from "../../../src/index.ts";
import {
  buildBedrockConverseRequest,
  CONVERSATION_START,
  type ConverseBlock,
  convertToBedrockConverseMessages,
  EMPTY_TOOL_RESULT,
  MISSING_TOOL_RESULT,
  PLACEHOLDER_TOOL,
} from "../../../src/protocols/bedrock-converse/index.ts";

const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const TARGET = { model: CLAUDE, origin: "bedrock" };
const SIGNED = { reasoningContent: { reasoningText: { text: "thinking", signature: "sig==" } } };
const REDACTED = { reasoningContent: { redactedContent: "RW5j" } };

const native = (blocks: unknown[], model = CLAUDE, protocol = "bedrock-converse", origin = "bedrock") => ({
  protocol,
  origin,
  model,
  blocks,
});

describe("convertToBedrockConverseMessages", () => {
  it("system prompts, user text, and blank text left out", () => {
    const converted = convertToBedrockConverseMessages(
      [
        { role: "system", content: "Be brief." },
        { role: "system", content: "  " },
        { role: "user", content: "hi" },
        { role: "user", content: "\n" },
      ],
      TARGET,
    );
    expect(converted.system).toEqual([{ text: "Be brief." }]);
    expect(converted.messages).toEqual([{ role: "user", content: [{ text: "hi" }] }]);
    expect(converted.hasToolBlocks).toBe(false);
  });

  it("tool calls and results: paired, results first, orphans as text, missing results as errors", () => {
    const converted = convertToBedrockConverseMessages(
      [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: "Calling.",
          toolCalls: [
            { id: "a", name: "one", arguments: { x: 1 } },
            { id: "b", name: "two", arguments: {} },
            { id: "", name: "nameless-id", arguments: {} },
          ],
        },
        { role: "user", content: "also this", toolResults: [{ callId: "a", content: "1" }] },
        { role: "tool", toolResults: [{ callId: "zzz", content: "stray" }] },
      ],
      TARGET,
    );
    expect(converted.messages).toEqual([
      { role: "user", content: [{ text: "go" }] },
      {
        role: "assistant",
        content: [
          { text: "Calling." },
          { toolUse: { toolUseId: "a", name: "one", input: { x: 1 } } },
          { toolUse: { toolUseId: "b", name: "two", input: {} } },
        ],
      },
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "b", content: [{ text: MISSING_TOOL_RESULT }], status: "error" } },
          { toolResult: { toolUseId: "a", content: [{ text: "1" }] } },
          { text: "[tool result for call zzz]\nstray" },
          { text: "also this" },
        ],
      },
    ]);
    expect(converted.toolNames).toEqual(["one", "two"]);
    expect(converted.hasToolBlocks).toBe(true);
    expect(converted.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining("without an id or a name"),
        expect.stringContaining("zzz has no matching tool call"),
        expect.stringContaining("b have no recorded result"),
      ]),
    );
  });

  it("error results: status for Claude and Nova, said in the text for other models; blank results filled", () => {
    const history: MessageInput[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        toolCalls: [
          { id: "a", name: "t" },
          { id: "b", name: "t" },
        ],
      },
      {
        role: "tool",
        toolResults: [
          { callId: "a", content: "boom", isError: true },
          { callId: "b", content: "  " },
        ],
      },
    ];
    expect(convertToBedrockConverseMessages(history, TARGET).messages[2]!.content).toEqual([
      { toolResult: { toolUseId: "a", content: [{ text: "boom" }], status: "error" } },
      { toolResult: { toolUseId: "b", content: [{ text: EMPTY_TOOL_RESULT }] } },
    ]);
    expect(
      convertToBedrockConverseMessages(history, TARGET, { toolResultStatus: false }).messages[2]!.content,
    ).toEqual([
      { toolResult: { toolUseId: "a", content: [{ text: "Error: boom" }] } },
      { toolResult: { toolUseId: "b", content: [{ text: EMPTY_TOOL_RESULT }] } },
    ]);
  });

  it("malformed arguments become {} with a warning; argumentsText is parsed when it is an object", () => {
    const converted = convertToBedrockConverseMessages(
      [
        { role: "user", content: "go" },
        {
          role: "assistant",
          toolCalls: [
            { id: "a", name: "t", arguments: {}, argumentsText: '{"cut":' },
            { id: "b", name: "t", arguments: "not json" as never },
            { id: "c", name: "t", arguments: '{"k":2}' as never },
          ],
        },
      ],
      TARGET,
    );
    const uses = converted.messages[1]!.content.map((block) => block.toolUse?.input);
    expect(uses).toEqual([{}, {}, { k: 2 }]);
    expect(converted.warnings.filter((warning) => warning.includes("not a JSON object"))).toHaveLength(1);
  });

  it("replays native blocks verbatim only on exact provenance; otherwise rebuilt, reasoning dropped", () => {
    const blocks = [
      SIGNED,
      REDACTED,
      { text: "\n\n" },
      { text: "Answer." },
      { cachePoint: { type: "default" } },
      { toolUse: { toolUseId: "srv", name: "nova_code_interpreter", input: {}, type: "server_tool_use" } },
      {
        toolResult: {
          toolUseId: "srv",
          content: [{ json: { out: 1 } }],
          type: "nova_code_interpreter_result",
        },
      },
      { toolUse: { toolUseId: "c1", name: "weather", input: { city: "Oslo" } } },
    ];
    const message = {
      role: "assistant" as const,
      content: "Answer.",
      toolCalls: [{ id: "c1", name: "weather", arguments: { city: "Oslo" } }],
      native: native(blocks),
    };
    const history: MessageInput[] = [
      { role: "user", content: "hi" },
      message,
      { role: "tool", toolResults: [{ callId: "c1", content: "cold" }] },
    ];
    const same = convertToBedrockConverseMessages(history, TARGET);
    expect(same.messages[1]!.content).toEqual([
      SIGNED,
      REDACTED,
      { text: "Answer." },
      blocks[5],
      blocks[6],
      blocks[7],
    ]);
    // Server tool calls need no result from the caller.
    expect(same.messages[2]!.content).toEqual([
      { toolResult: { toolUseId: "c1", content: [{ text: "cold" }] } },
    ]);
    expect(same.warnings).toEqual([]);

    for (const other of [
      native(blocks, "us.anthropic.claude-opus-4-1-20250805-v1:0"),
      native(blocks, CLAUDE, "anthropic-messages"),
      native(blocks, CLAUDE, "bedrock-converse", "anthropic"),
    ]) {
      const rebuilt = convertToBedrockConverseMessages(
        [history[0]!, { ...message, native: other }, history[2]!],
        TARGET,
      );
      expect(rebuilt.messages[1]!.content).toEqual([
        { text: "Answer." },
        { toolUse: { toolUseId: "c1", name: "weather", input: { city: "Oslo" } } },
      ]);
      expect(rebuilt.warnings[0]).toContain("2 reasoning block(s) dropped");
      expect(JSON.stringify(rebuilt.messages)).not.toContain("thinking");
    }
  });

  it("Anthropic-protocol thinking from InvokeModel is never demoted to text on Converse", () => {
    const converted = convertToBedrockConverseMessages(
      [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "Hello",
          native: native(
            [
              { type: "thinking", thinking: "secret thoughts", signature: "s" },
              { type: "text", text: "Hello" },
            ],
            CLAUDE,
            "anthropic-messages",
          ),
        },
      ],
      TARGET,
    );
    expect(converted.messages[1]).toEqual({ role: "assistant", content: [{ text: "Hello" }] });
    expect(JSON.stringify(converted)).not.toContain("secret thoughts");
  });

  it("unsigned readable reasoning: dropped for Claude, kept for models that do not sign (gpt-oss)", () => {
    const unsigned = { reasoningContent: { reasoningText: { text: "raw cot" } } };
    const history = (model: string): MessageInput[] => [
      { role: "user", content: "hi" },
      { role: "assistant", content: "ok", native: native([unsigned, { text: "" }, { text: "ok" }], model) },
    ];
    const claude = convertToBedrockConverseMessages(history(CLAUDE), TARGET);
    expect(claude.messages[1]!.content).toEqual([{ text: "ok" }]);
    expect(claude.warnings[0]).toContain("without its signature");
    const gptOss = "openai.gpt-oss-120b-1:0";
    const open = convertToBedrockConverseMessages(
      history(gptOss),
      { model: gptOss, origin: "bedrock" },
      {
        requireSignedReasoning: false,
      },
    );
    expect(open.messages[1]!.content).toEqual([unsigned, { text: "ok" }]);
  });

  it("tool ids: invalid characters, reuse across turns and length are repaired in calls and results alike", () => {
    const long = "x".repeat(80);
    const converted = convertToBedrockConverseMessages(
      [
        { role: "user", content: "go" },
        {
          role: "assistant",
          toolCalls: [
            { id: "functions.search:0", name: "search" },
            { id: long, name: "search" },
          ],
        },
        {
          role: "tool",
          toolResults: [
            { callId: "functions.search:0", content: "r1" },
            { callId: long, content: "r2" },
          ],
        },
        { role: "assistant", toolCalls: [{ id: "functions_search_0", name: "search" }] },
        { role: "tool", toolResults: [{ callId: "functions_search_0", content: "r3" }] },
      ],
      TARGET,
    );
    const ids = converted.messages.flatMap((turn) =>
      turn.content.flatMap((block) =>
        [block.toolUse?.toolUseId, block.toolResult?.toolUseId].filter(Boolean),
      ),
    );
    expect(ids).toEqual([
      "functions_search_0",
      "x".repeat(64),
      "functions_search_0",
      "x".repeat(64),
      "functions_search_0_dup2",
      "functions_search_0_dup2",
    ]);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("merges consecutive turns; a conversation opening with the assistant gets a user turn first", () => {
    const converted = convertToBedrockConverseMessages(
      [
        { role: "assistant", content: "Hello! How can I help?" },
        { role: "user", content: "one" },
        { role: "user", content: "two" },
        { role: "assistant", content: "Prefill " },
      ],
      TARGET,
    );
    expect(converted.messages).toEqual([
      { role: "user", content: [{ text: CONVERSATION_START }] },
      { role: "assistant", content: [{ text: "Hello! How can I help?" }] },
      { role: "user", content: [{ text: "one" }, { text: "two" }] },
      { role: "assistant", content: [{ text: "Prefill" }] },
    ]);
    expect(converted.warnings).toHaveLength(2);
  });

  it("never throws on garbage", () => {
    const garbage: unknown[] = [
      null,
      7,
      { role: "robot" },
      { role: "user", content: { nested: true }, toolResults: [null, { callId: 5 }] },
      {
        role: "assistant",
        toolCalls: [null, { id: 1 }],
        native: {
          protocol: "bedrock-converse",
          origin: "bedrock",
          model: CLAUDE,
          blocks: [null, 1, { toolUse: 5 }, { reasoningContent: {} }, { text: 3 }],
        },
      },
    ];
    const converted = convertToBedrockConverseMessages(garbage, TARGET);
    expect(converted.messages).toEqual([]);
    expect(converted.warnings.length).toBeGreaterThan(5);
    expect(convertToBedrockConverseMessages("nope" as never, TARGET).messages).toEqual([]);
  });
});

describe("buildBedrockConverseRequest", () => {
  const tools = [
    {
      name: "weather",
      description: "Weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
    { name: "time", parameters: { type: "object" } },
  ];
  const build = (
    options: CallOptions,
    extra: Partial<Parameters<typeof buildBedrockConverseRequest>[0]> = {},
  ) =>
    buildBedrockConverseRequest({
      messages: [{ role: "user", content: "hi" }],
      tools,
      options,
      model: CLAUDE,
      anthropicProfile: anthropicModelProfile(CLAUDE),
      ...extra,
    });

  it("tool choice: auto, any, a named tool, an unknown name", () => {
    expect(build({ toolChoice: "auto" }).body.toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(build({ toolChoice: "any" }).body.toolConfig?.toolChoice).toEqual({ any: {} });
    expect(build({ toolChoice: { name: "time" } }).body.toolConfig?.toolChoice).toEqual({
      tool: { name: "time" },
    });
    const unknown = build({ toolChoice: { name: "nope" } });
    expect(unknown.body.toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(unknown.warnings[0]).toContain('"nope"');
    expect(build({}).body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: "weather",
            description: "Weather",
            inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } },
          },
        },
        { toolSpec: { name: "time", inputSchema: { json: { type: "object" } } } },
      ],
    });
  });

  it("toolChoice none withholds the tools, unless the history holds tool blocks", () => {
    expect(build({ toolChoice: "none" }).body.toolConfig).toBeUndefined();
    const history: MessageInput[] = [
      { role: "user", content: "go" },
      { role: "assistant", toolCalls: [{ id: "a", name: "weather" }] },
      { role: "tool", toolResults: [{ callId: "a", content: "sunny" }] },
    ];
    const none = build({ toolChoice: "none" }, { messages: history });
    expect(none.body.toolConfig?.tools).toHaveLength(2);
    expect(none.body.toolConfig?.toolChoice).toBeUndefined();
    expect(none.warnings.join(" ")).toContain("no toolChoice none");
    const noTools = build({}, { messages: history, tools: [] });
    expect(noTools.body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: PLACEHOLDER_TOOL,
            description: expect.stringContaining("Do not call"),
            inputSchema: { json: { type: "object", properties: {} } },
          },
        },
      ],
    });
  });

  it("Claude thinking through additionalModelRequestFields, with the profile's rules", () => {
    const budget = build({ thinking: { budgetTokens: 100 }, maxTokens: 500, topP: 0.5 });
    expect(budget.body.additionalModelRequestFields).toEqual({
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    expect(budget.body.inferenceConfig).toEqual({ maxTokens: 1025, topP: 0.95 });
    const adaptive = build(
      { thinking: "adaptive" },
      {
        model: "global.anthropic.claude-sonnet-4-6",
        anthropicProfile: anthropicModelProfile("claude-sonnet-4-6"),
      },
    );
    expect(adaptive.body.additionalModelRequestFields).toEqual({ thinking: { type: "adaptive" } });
    expect(build({ thinking: "off" }).body.additionalModelRequestFields).toEqual({
      thinking: { type: "disabled" },
    });
    const forced = build({ thinking: { budgetTokens: 4000 }, toolChoice: "any" });
    expect(forced.body.additionalModelRequestFields).toEqual({ thinking: { type: "disabled" } });
    expect(forced.warnings.join(" ")).toContain("forced tool choice");
    // Without thinking, Claude still gets the profile's default maxTokens.
    expect(build({}).body.inferenceConfig).toEqual({
      maxTokens: anthropicModelProfile(CLAUDE).defaultMaxTokens,
    });
  });

  it("inference settings, stop sequences, metadata, betas and pass-through fields", () => {
    const built = build(
      {
        maxTokens: 300,
        temperature: 0.5,
        topP: 0.9,
        stopSequences: ["END"],
        metadata: Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`k${index}`, "v"])),
      },
      { betas: ["context-1m-2025-08-07"], additionalModelRequestFields: { top_k: 5 } },
    );
    expect(built.body.inferenceConfig).toEqual({
      maxTokens: 300,
      temperature: 0.5,
      topP: 0.9,
      stopSequences: ["END"],
    });
    expect(built.body.additionalModelRequestFields).toEqual({
      anthropic_beta: ["context-1m-2025-08-07"],
      top_k: 5,
    });
    expect(Object.keys(built.body.requestMetadata!)).toHaveLength(16);
    expect(built.warnings.join(" ")).toContain("at most 16 metadata entries");
  });

  it("cache points: auto after tools, system and the conversation prefix; at most four; TTL; breakpoints", () => {
    const history: MessageInput[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "one" },
      { role: "assistant", content: "two" },
      { role: "user", content: "three" },
    ];
    const auto = build({ cache: { ttl: "1h" } }, { messages: history });
    const point = { cachePoint: { type: "default", ttl: "1h" } };
    expect(auto.body.toolConfig!.tools.at(-1)).toEqual(point);
    expect(auto.body.system).toEqual([{ text: "sys" }, point]);
    expect(auto.body.messages.map((message) => message.content.at(-1))).toEqual([
      point,
      { text: "two" },
      point,
    ]);
    expect(JSON.stringify(auto.body).match(/cachePoint/g)).toHaveLength(4);

    const explicit = build(
      {
        cache: {
          breakpoints: ["system", { message: 1 }, "tools", { message: 0 }, { message: 2 }, { message: 9 }],
        },
      },
      { messages: history },
    );
    expect(JSON.stringify(explicit.body).match(/cachePoint/g)).toHaveLength(4);
    expect(explicit.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining("Bedrock allows 4"),
        expect.stringContaining("messages[9]"),
      ]),
    );
    expect(JSON.stringify(build({ cache: "off" }, { messages: history }).body)).not.toContain("cachePoint");
  });

  it("cache points: Nova gets none on tools, other models none at all (reported only when asked)", () => {
    const nova = buildBedrockConverseRequest({
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
      ],
      tools,
      options: {},
      model: "us.amazon.nova-pro-v1:0",
      defaultCache: "auto",
    });
    expect(nova.body.toolConfig!.tools.every((tool) => "toolSpec" in tool)).toBe(true);
    expect(nova.body.system!.at(-1)).toEqual({ cachePoint: { type: "default" } });
    const llama = (options: CallOptions) =>
      buildBedrockConverseRequest({
        messages: [{ role: "user", content: "hi" }],
        tools: [],
        options,
        model: "meta.llama3-70b-instruct-v1:0",
        defaultCache: "auto",
      });
    expect(JSON.stringify(llama({}).body)).not.toContain("cachePoint");
    expect(llama({}).warnings).toEqual([]);
    expect(llama({ cache: "auto" }).warnings[0]).toContain("no prompt-cache checkpoints");
  });

  it("never puts a cache point right after replayed reasoning, nor mutates the caller's history", () => {
    const blocks: ConverseBlock[] = [SIGNED];
    const history: MessageInput[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", native: native(blocks) },
    ];
    const snapshot = JSON.stringify(history);
    const built = build({ cache: "auto" }, { messages: history, tools: [] });
    expect(built.body.messages[1]!.content).toEqual([SIGNED]);
    expect(JSON.stringify(history)).toBe(snapshot);
  });
});
