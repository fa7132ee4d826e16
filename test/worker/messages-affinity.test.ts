/**
 * Session affinity on /v1/messages: Claude Code's `metadata.user_id` (which carries its session) pins a
 * pool route's member like `x-session-id` does, streamed and not; the header wins when both are sent.
 */
import { describe, expect, it } from "vitest";
import {
  gateway,
  MEMBER_A,
  MEMBER_B,
  openaiCompletion,
  openaiFrames,
  sseResponse,
  streamBody,
} from "./helpers.ts";

const HOSTS = [new URL(MEMBER_A).host, new URL(MEMBER_B).host];
const USER_ID = "user_9f3c_account_1b2c_session_5d6e7f80-aaaa-bbbb-cccc-0123456789ab";

function pool() {
  const { call, calls } = gateway((upstream) =>
    upstream.body.stream === true
      ? sseResponse(streamBody(openaiFrames("Qwen/Qwen3-8B", ["ok"])))
      : Response.json(openaiCompletion("Qwen/Qwen3-8B", "ok")),
  );
  const ask = (stream: boolean, headers: Record<string, string> = {}, userId = USER_ID) =>
    call("/v1/messages", {
      headers,
      json: {
        model: "pool",
        max_tokens: 16,
        stream,
        metadata: { user_id: userId },
        messages: [{ role: "user", content: "hi" }],
      },
    });
  return { call, calls, ask };
}

describe("/v1/messages session affinity", () => {
  it("metadata.user_id pins the member, call after call", async () => {
    const { call, calls, ask } = pool();
    for (let index = 0; index < 6; index++) {
      const response = await ask(index % 2 === 0);
      expect(response.status).toBe(200);
      await response.text();
    }
    const members = calls.map((upstream) => HOSTS.indexOf(upstream.host));
    expect(members).toHaveLength(6);
    expect(new Set(members).size).toBe(1);
    const pins = (await (await call(`/v1/sessions/${USER_ID}`)).json()) as {
      pins: { route: string; member: string }[];
    };
    expect(pins.pins).toEqual([expect.objectContaining({ route: "pool", member: String(members[0]) })]);
  });

  it("x-session-id wins over metadata.user_id", async () => {
    const { call, ask } = pool();
    const userId = `${USER_ID}-2`;
    const response = await ask(false, { "x-session-id": "messages-header-session" }, userId);
    expect(response.status).toBe(200);
    expect((await call("/v1/sessions/messages-header-session")).status).toBe(200);
    expect((await call(`/v1/sessions/${userId}`)).status).toBe(404);
  });
});
