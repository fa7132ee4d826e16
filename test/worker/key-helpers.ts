/**
 * The virtual-key tests' gateway: upstreams that answer every call (Anthropic and OpenAI shapes), and
 * helpers for the admin API and for calling with a key.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { WorkerEnv } from "../../src/worker/app.ts";
import { anthropicMessage, gateway, openaiCompletion } from "./helpers.ts";

export const ADMIN = env.ADMIN_TOKENS;

/** A gateway whose upstreams answer every call (Anthropic and OpenAI shapes), and its admin helpers. */
export function keyGateway() {
  const g = gateway((call) =>
    call.host.startsWith("anthropic")
      ? Response.json(anthropicMessage("hello from claude"))
      : Response.json(openaiCompletion("gpt-4o-2024-08-06", "hello from gpt")),
  );
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
  return { ...g, admin, createKey, chat };
}
