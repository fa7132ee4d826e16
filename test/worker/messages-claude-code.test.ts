/**
 * A request shaped as Claude Code sends one (v2.x: `POST /v1/messages?beta=true`, `x-api-key`,
 * `anthropic-version: 2023-06-01`, several `anthropic-beta` flags, system and tool blocks with
 * `cache_control`, `metadata.user_id`, a real model id the route has as an alias, `stream: true`) served
 * end to end: to a first-party upstream (betas and body forwarded unchanged, the events back byte for
 * byte) and to Bedrock InvokeModel (betas filtered into the body, the dropped ones in a header, no 400).
 * Then the same body to an OpenAI Chat route, where the marks it cannot carry are warnings.
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_BASE,
  ANTHROPIC_KEY,
  anthropicEvents,
  OPENAI_BASE,
  openaiFrames,
  TOKEN,
} from "./helpers.ts";
import {
  anthropicSse,
  BEDROCK_HOST,
  BEDROCK_MODEL,
  bedrockStream,
  messagesGateway,
  sse,
} from "./messages-fixtures.ts";

const BETAS = [
  "claude-code-20250219",
  "interleaved-thinking-2025-05-14",
  "fine-grained-tool-streaming-2025-05-14",
  "oauth-2025-04-20",
  "prompt-caching-scope-2026-01-05",
];

/** Claude Code's body: the route named by a real model id (an alias of `claude`, see the fixtures). */
function claudeCodeBody(model: string): Record<string, unknown> {
  return {
    model,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>Today's date is 2026-12-02.</system-reminder>" },
          { type: "text", text: "Fix the failing test.", cache_control: { type: "ephemeral" } },
        ],
      },
    ],
    system: [
      { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." },
      {
        type: "text",
        text: "You are an interactive CLI tool that helps users with software engineering tasks.",
        cache_control: { type: "ephemeral" },
      },
    ],
    tools: [
      {
        name: "Bash",
        description: "Executes a given bash command",
        input_schema: {
          type: "object",
          properties: { command: { type: "string" } },
          required: ["command"],
          additionalProperties: false,
          $schema: "http://json-schema.org/draft-07/schema#",
        },
        cache_control: { type: "ephemeral" },
      },
    ],
    metadata: {
      user_id:
        "user_4f2b6c1d9e8a7b3c_account_0b8f7a52-3c1d-4e8f-9a6b-2d4c6e8f0a1b_session_7c9e1f3a-5b2d-4c8e-a0f1-3b5d7e9f1a2c",
    },
    max_tokens: 32000,
    thinking: { type: "enabled", budget_tokens: 31999 },
    stream: true,
  };
}

/** Claude Code's headers: `x-api-key` auth (no Authorization), the betas, the CLI's own. */
function claudeCodeRequest(body: Record<string, unknown>): Request {
  return new Request("http://gateway.test/v1/messages?beta=true", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": TOKEN,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": BETAS.join(","),
      "anthropic-dangerous-direct-browser-access": "true",
      "x-app": "cli",
      "user-agent": "claude-cli/2.0.14 (external, cli)",
    },
    body: JSON.stringify(body),
  });
}

const EVENTS = anthropicEvents(["I'll run ", "the tests."], {
  id: "toolu_01Bash",
  name: "Bash",
  pieces: ['{"command":', ' "npm test"}'],
});

describe("a Claude Code request", () => {
  it("to first-party Anthropic: betas and version forwarded, the body unchanged but for the model, the events byte for byte", async () => {
    const { fetch, calls } = messagesGateway((call) => {
      expect(call.url).toBe(`${ANTHROPIC_BASE}/messages`);
      return sse(anthropicSse(EVENTS));
    });
    const body = claudeCodeBody("claude-sonnet-4-5-20250929");
    const response = await fetch(claudeCodeRequest(body));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-modelwire-dropped-betas")).toBeNull();
    expect(response.headers.get("x-modelwire-warnings")).toBeNull();
    expect(await response.text()).toBe(anthropicSse(EVENTS));

    expect(calls).toHaveLength(1);
    const upstream = calls[0]!;
    expect(upstream.headers.get("anthropic-beta")).toBe(BETAS.join(","));
    expect(upstream.headers.get("anthropic-version")).toBe("2023-06-01");
    // The upstream gets the route's key, never the gateway token.
    expect(upstream.headers.get("x-api-key")).toBe(ANTHROPIC_KEY);
    expect(JSON.stringify(upstream.body)).not.toContain(TOKEN);
    expect(upstream.body).toEqual({ ...body, model: "claude-sonnet-4-5" });
    expect(Object.keys(upstream.body)).toEqual(Object.keys(body));
  });

  it("read by the SDK's MessageStream as Claude Code reads it: text, then the tool call", async () => {
    const { fetch } = messagesGateway(() => sse(anthropicSse(EVENTS)));
    const client = new Anthropic({
      apiKey: TOKEN,
      baseURL: "http://gateway.test",
      fetch,
      maxRetries: 0,
      defaultHeaders: { "anthropic-beta": BETAS.join(",") },
    });
    const { stream: _stream, ...params } = claudeCodeBody("claude-sonnet-4-5-20250929");
    const message = await client.messages
      .stream(params as unknown as Anthropic.MessageStreamParams)
      .finalMessage();
    expect(message.content).toEqual([
      { type: "text", text: "I'll run the tests." },
      { type: "tool_use", id: "toolu_01Bash", name: "Bash", input: { command: "npm test" } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
  });

  it("to Bedrock InvokeModel: the betas it takes in the body, the others in a header, never a 400", async () => {
    const { fetch, calls } = messagesGateway(() => bedrockStream(EVENTS));
    const body = claudeCodeBody("bedrock");
    const response = await fetch(claudeCodeRequest(body));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-modelwire-dropped-betas")).toBe(
      "claude-code-20250219,oauth-2025-04-20,prompt-caching-scope-2026-01-05",
    );
    expect(JSON.parse(response.headers.get("x-modelwire-warnings")!)).toEqual([
      "Bedrock InvokeModel takes no metadata; left out",
    ]);
    // The events Bedrock wrapped in event-stream frames, as Anthropic SSE.
    expect(await response.text()).toBe(anthropicSse(EVENTS));

    expect(calls).toHaveLength(1);
    const upstream = calls[0]!;
    expect(upstream.url).toBe(
      `https://${BEDROCK_HOST}/model/${encodeURIComponent(BEDROCK_MODEL)}/invoke-with-response-stream`,
    );
    expect(upstream.headers.get("anthropic-beta")).toBeNull();
    const { model: _model, stream: _stream, metadata: _metadata, ...rest } = body;
    expect(upstream.body).toEqual({
      anthropic_version: "bedrock-2023-05-31",
      ...rest,
      anthropic_beta: ["interleaved-thinking-2025-05-14", "fine-grained-tool-streaming-2025-05-14"],
    });
  });

  it("to an OpenAI Chat route: converted, the marks it cannot carry named in the warnings header", async () => {
    const { fetch, calls } = messagesGateway((call) => {
      expect(call.url).toBe(`${OPENAI_BASE}/chat/completions`);
      return sse(
        openaiFrames("gpt-4o", ["I'll run the tests."], {
          tool: { id: "call_Bash1", name: "Bash", pieces: ['{"command":"npm test"}'] },
        }).join(""),
      );
    });
    const body = { ...claudeCodeBody("gpt"), thinking: { type: "adaptive" } };
    const response = await fetch(claudeCodeRequest(body));
    expect(response.status).toBe(200);
    const warnings = JSON.parse(response.headers.get("x-modelwire-warnings")!) as string[];
    expect(warnings).toEqual([
      expect.stringMatching(
        /^cache_control \(system\[1\]\.cache_control, messages\[0\]\.content\[1\]\.cache_control, tools\[0\]\.cache_control\): prompt-cache marks are not carried/,
      ),
    ]);
    const text = await response.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const sent = calls[0]!.body;
    expect(sent.messages).toEqual([
      {
        role: "system",
        content:
          "You are Claude Code, Anthropic's official CLI for Claude.\n\nYou are an interactive CLI tool that helps users with software engineering tasks.",
      },
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>Today's date is 2026-12-02.</system-reminder>" },
          { type: "text", text: "Fix the failing test." },
        ],
      },
    ]);
    // metadata.user_id is the call's user (as Chat's `user` field says it).
    expect(JSON.stringify(sent)).toContain("user_4f2b6c1d9e8a7b3c");
  });
});
