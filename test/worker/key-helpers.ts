/**
 * The virtual-key tests' gateway: upstreams that answer every call (Anthropic and OpenAI shapes), and
 * helpers for the admin API and for calling with a key.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { CreateWorkerOptions, WorkerEnv } from "../../src/worker/app.ts";
import type { UsageLine } from "../../src/worker/keys/usage-rows.ts";
import {
  anthropicEvents,
  anthropicFrames,
  anthropicMessage,
  gateway,
  openaiCompletion,
  openaiFrames,
  sseResponse,
  type UpstreamHandler,
  waitFor,
} from "./helpers.ts";

export const ADMIN = env.ADMIN_TOKENS;

/** The default upstream: an Anthropic message or an OpenAI completion, by host; streamed when asked. */
const answerEverything: UpstreamHandler = (call) => {
  const stream = call.body.stream === true;
  if (call.host.startsWith("anthropic")) {
    return stream
      ? sseResponse(anthropicFrames(anthropicEvents(["hello ", "from claude"])).join(""))
      : Response.json(anthropicMessage("hello from claude"));
  }
  return stream
    ? sseResponse(openaiFrames("gpt-4o-2024-08-06", ["hello ", "from gpt"]).join(""))
    : Response.json(openaiCompletion("gpt-4o-2024-08-06", "hello from gpt"));
};

/**
 * A gateway (over `ROUTES`, or `options.config`) whose upstreams answer every call (Anthropic and OpenAI
 * shapes, or `handler`), and its admin helpers.
 */
export function keyGateway(options: CreateWorkerOptions = {}, handler: UpstreamHandler = answerEverything) {
  const g = gateway(handler, options);
  const admin = (path: string, init: RequestInit & { json?: unknown } = {}, environment?: WorkerEnv) =>
    g.call(path, { ...init, headers: { authorization: `Bearer ${ADMIN}`, ...init.headers } }, environment);
  const createKey = async (spec: Record<string, unknown>) => {
    const response = await admin("/v1/admin/keys", { json: spec });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; key: string } & Record<string, unknown>;
  };
  const chat = (key: string, model = "gpt", headers: Record<string, string> = {}) =>
    g.call("/v1/chat/completions", {
      json: { model, messages: [{ role: "user", content: "hi" }], max_tokens: 100 },
      headers: { authorization: `Bearer ${key}`, ...headers },
    });
  /** The usage query's answer (`query`: its query string). */
  const usage = async (query = "") => {
    const response = await admin(`/v1/admin/usage${query}`);
    expect(response.status).toBe(200);
    return (await response.json()) as UsageAnswer;
  };
  /** The usage line of key `id` once it counts `requests` calls (the meter records in the background). */
  const settledUsage = (id: string, requests: number) =>
    waitFor(async () => {
      const line = (await usage("?groupBy=key")).data.find((entry) => entry.key === id);
      return line && line.requests >= requests ? line : undefined;
    });
  /** The key's record and `state` (its window and spend now). */
  const keyState = async (id: string) => {
    const response = await admin(`/v1/admin/keys/${id}`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { state: KeyStateAnswer }).state;
  };
  /** The key's state once `settledRequests` requests are settled in its window (nothing held in flight). */
  const settledState = (id: string, check: (state: KeyStateAnswer) => boolean) =>
    waitFor(async () => {
      const state = await keyState(id);
      return check(state) ? state : undefined;
    });
  return { ...g, admin, createKey, chat, usage, settledUsage, keyState, settledState };
}

/** `state` of `GET /v1/admin/keys/:id`. */
export interface KeyStateAnswer {
  window: { requests: number; tokens: number };
  spend?: { period: string; usd: number; inFlightUsd: number };
}

/** One line of `GET /v1/admin/usage` (the gateway's own type: the answer is its JSON). */
export type { UsageLine };

/** `GET /v1/admin/usage`'s answer. */
export interface UsageAnswer {
  from: string;
  to: string;
  groupBy: string;
  data: UsageLine[];
  total: UsageLine;
}
