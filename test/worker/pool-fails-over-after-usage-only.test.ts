/**
 * The bug "a pool fails over only before the first event": a pool route of two Anthropic members, where
 * member A answers `message_start` (whose only neutral event is `usage`) and then an `overloaded_error`
 * error event. No content went out, so the session must fail over to member B — as `fallback()` over the
 * same providers does. The gateway used to wait only for the first *event*, took the usage as output, and
 * sent the overload to the client as an SSE error frame for every session pinned to A.
 */
import { describe, expect, it } from "vitest";
import {
  anthropicEvents,
  anthropicFrames,
  dataOf,
  gateway,
  readSse,
  type SseFrame,
  sseResponse,
  streamBody,
  type UpstreamCall,
} from "./helpers.ts";

const MEMBER_A = "https://member-a.anthropic.test/v1";
const MEMBER_B = "https://member-b.anthropic.test/v1";
const HOST_A = new URL(MEMBER_A).host;
const HOST_B = new URL(MEMBER_B).host;

const member = (baseURL: string) => ({
  protocol: "anthropic",
  model: "claude-sonnet-4-5",
  baseURL,
  apiKeySecret: "ANTHROPIC_API_KEY",
});

const CONFIG = {
  routes: {
    "claude-pool": { pool: [member(MEMBER_A), member(MEMBER_B)] },
  },
};

/** Member A: `message_start`, then the error event Anthropic sends when it is overloaded. */
function overloadedAfterMessageStart(): string[] {
  const [messageStart] = anthropicFrames(anthropicEvents(["never sent"]));
  return [
    messageStart!,
    `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`,
  ];
}

function anthropicPool() {
  return gateway(
    (upstream: UpstreamCall) =>
      upstream.host === HOST_A
        ? sseResponse(streamBody(overloadedAfterMessageStart()))
        : sseResponse(streamBody(anthropicFrames(anthropicEvents(["served ", "by ", "B"])))),
    { config: CONFIG },
  );
}

const MESSAGES = [{ role: "user", content: "Hello?" }];

/** What one streamed request came to: who answered it last, its error frames, its text, how it ended. */
interface Outcome {
  session: string;
  status: number;
  servedBy: string | undefined;
  errorFrames: number;
  text: string;
  ended: string | undefined;
}

type Chunk = { choices: { delta: { content?: string } }[] };

/** The two streaming routes: the request body of each, the text of its frames, and its last frame. */
const ROUTES = [
  {
    name: "stream",
    path: "/v1/stream",
    body: { route: "claude-pool", messages: MESSAGES },
    text: (frames: SseFrame[]) =>
      frames
        .filter((frame) => frame.event === "text-delta")
        .map((frame) => (JSON.parse(frame.data) as { text: string }).text)
        .join(""),
    ended: "done",
    last: (frames: SseFrame[]) => frames.at(-1)?.event,
  },
  {
    name: "chat",
    path: "/v1/chat/completions",
    body: { model: "claude-pool", messages: MESSAGES, stream: true },
    text: (frames: SseFrame[]) =>
      dataOf(frames.filter((frame) => frame.event === undefined))
        .map((chunk) => (typeof chunk === "string" ? "" : ((chunk as Chunk).choices[0]?.delta.content ?? "")))
        .join(""),
    ended: "[DONE]",
    last: (frames: SseFrame[]) => frames.at(-1)?.data,
  },
] as const;

describe("a pool member that fails after usage only (no content) fails over", () => {
  for (const route of ROUTES) {
    it(`streamed ${route.path}: every one of 12 sessions is served by member B, without an error frame`, async () => {
      const { call, calls } = anthropicPool();
      // Sessions of their own per route, so one test's failovers do not re-pin the other's.
      const sessions = Array.from({ length: 12 }, (_, index) => `${route.name}-session-${index}`);
      const outcomes: Outcome[] = [];
      for (const session of sessions) {
        const from = calls.length;
        const response = await call(route.path, { headers: { "x-session-id": session }, json: route.body });
        const frames = await readSse(response);
        outcomes.push({
          session,
          status: response.status,
          servedBy: calls.slice(from).at(-1)?.host,
          // modelwire's `event: error`, or the chat route's `data: {"error": …}`.
          errorFrames: frames.filter((frame) => frame.event === "error" || frame.data.startsWith('{"error"'))
            .length,
          text: route.text(frames),
          ended: route.last(frames),
        });
      }
      expect(outcomes).toEqual(
        sessions.map((session) => ({
          session,
          status: 200,
          servedBy: HOST_B,
          errorFrames: 0,
          text: "served by B",
          ended: route.ended,
        })),
      );
      // Some sessions were pinned to A and had to fail over; without them the test would prove nothing.
      expect(calls.filter((upstream) => upstream.host === HOST_A).length).toBeGreaterThan(0);
    });
  }
});
