/**
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`: the Anthropic Messages API over every route,
 * so Claude Code, `@anthropic-ai/sdk` and `@ai-sdk/anthropic` can use the gateway. Routing is on the path
 * only (Claude Code calls `/v1/messages?beta=true`); `model` names a route or one of its aliases; the
 * `anthropic-beta` (a comma list) and `anthropic-version` headers are read, the version never checked.
 * The session for affinity is `x-session-id`, else `metadata.user_id` (Claude Code's carries the session).
 *
 * - On a member that speaks the Messages protocol natively (first-party Anthropic, Bedrock InvokeModel),
 *   the client's body goes upstream as it is and the answer comes back as it was sent
 *   (`../anthropic-dialect/messages-native.ts`); the beta flags the upstream does not take are left out
 *   and listed in `x-modelwire-dropped-betas`, never a 400.
 * - On any other member the request is converted through the neutral model
 *   (`../anthropic-dialect/messages-request.ts`) and the answer written as a `Message` or the Messages
 *   event stream (`messages-answer.ts`, `messages-stream.ts`), the route's reasoning carried in a thinking
 *   block's signature.
 *
 * `count_tokens` asks the upstream's counting API where the member has one, and estimates otherwise — and
 * when that count fails for any reason but a refused key (`x-modelwire-token-count: estimate`, a warning
 * saying why).
 *
 * Warnings go in `x-modelwire-warnings` (a JSON array). Failures are Anthropic's error envelope, by
 * `app.onError` before the stream starts and as `event: error` after.
 *
 * @module
 */

import * as z from "zod/mini";
import type { CallOptions } from "../../core/call-options.ts";
import type { Provider } from "../../core/provider.ts";
import { ProviderError } from "../../core/provider-error.ts";
import { StructuredOutputError } from "../../core/structured-output.ts";
import { validate } from "../../core/validation-error.ts";
import { ANTHROPIC_MESSAGES } from "../../protocols/anthropic-messages/anthropic-wire.ts";
import { type NativeAnswer, nativeEndpointOf } from "../../providers/native.ts";
import { countableBody, estimateInputTokens, TOKEN_COUNT_HEADER } from "../anthropic-dialect/count-tokens.ts";
import { anthropicMessageOf } from "../anthropic-dialect/messages-answer.ts";
import { betasOf, nativeFrames, withoutCarriedThinking } from "../anthropic-dialect/messages-native.ts";
import {
  messagesHeadOf,
  messagesRequestToNeutral,
  type NeutralMessagesCall,
} from "../anthropic-dialect/messages-request.ts";
import { anthropicFramesOf } from "../anthropic-dialect/messages-stream.ts";
import { completeOn, framesOn, type RouteCalls } from "../call-route.ts";
import { completedOrRaw } from "../chat-completions.ts";
import { dialectErrorJSON } from "../dialect-errors.ts";
import type { Gateway } from "../env.ts";
import { Hono } from "../hono.ts";
import { keepAlive } from "../keep-alive.ts";
import { contentStream } from "../pool.ts";
import { headerSessionId, jsonBody } from "../request.ts";
import { dialectHeaders } from "../response-headers.ts";
import type { ErrorFrames } from "../write-sse.ts";

/** The frames that end a failed Messages stream: `event: error` with Anthropic's error envelope. */
export const anthropicErrorFrames: ErrorFrames = (failure, expose) => [
  {
    event: "error",
    data: StructuredOutputError.is(failure)
      ? { type: "error", error: { type: "api_error", message: failure.message } }
      : dialectErrorJSON(failure, "anthropic", expose),
  },
];

/** The headers of a native answer: its warnings (and the request's), dropped betas, the upstream's id. */
function nativeHeaders(answer: NativeAnswer, warnings: readonly string[]): Record<string, string> {
  return {
    ...dialectHeaders([...warnings, ...answer.warnings], answer.droppedBetas),
    ...(answer.requestId ? { "request-id": answer.requestId } : {}),
  };
}

/** The Messages routes of a gateway. */
export function messagesRoutes(gateway: RouteCalls): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.post("/v1/messages", async (c) => {
    const head = messagesHeadOf(await jsonBody(c));
    // An unknown model is the 404 not_found_error here, before any member is chosen.
    const route = gateway.tables.route(c.env, head.model);
    const betas = betasOf(c.req.header("anthropic-beta"));
    const version = c.req.header("anthropic-version");
    const call = { route: head.model, sessionId: headerSessionId(c) ?? head.userId };
    let converted: NeutralMessagesCall | undefined;
    /** The request through the neutral model: converted once, for the first member that needs it. */
    const neutral = () => {
      converted ??= messagesRequestToNeutral(head.body, route.alias);
      return converted;
    };
    const callOptions = (request: NeutralMessagesCall, options: CallOptions): CallOptions => ({
      ...request.options,
      ...options,
    });

    if (!head.stream) {
      return completeOn(c, gateway, call, async (provider, options) => {
        const native = nativeOf(provider);
        if (native) {
          const warnings: string[] = [];
          const body = withoutCarriedThinking(head.body, warnings);
          const answer = await native.send({ body, stream: false, betas, version, signal: options.signal });
          return new Response(answer.json, {
            status: 200,
            headers: { "content-type": "application/json", ...nativeHeaders(answer, warnings) },
          });
        }
        const request = neutral();
        const response = await completedOrRaw(
          provider.complete(request.messages, request.tools, callOptions(request, options)),
        );
        const warnings = [...request.warnings, ...(response.warnings ?? [])];
        const message = anthropicMessageOf(response, head.model, route.alias, warnings);
        return Response.json(message, { headers: dialectHeaders(warnings) });
      });
    }

    return framesOn(
      c,
      gateway,
      call,
      async (provider, options) => {
        const native = nativeOf(provider);
        if (native) {
          const warnings: string[] = [];
          const body = withoutCarriedThinking(head.body, warnings);
          const answer = await native.send({ body, stream: true, betas, version, signal: options.signal });
          const frames = await nativeFrames(answer.events!);
          return { frames, headers: nativeHeaders(answer, warnings) };
        }
        const request = neutral();
        const events = await contentStream(provider, (member) =>
          member.stream(request.messages, request.tools, callOptions(request, options)),
        );
        return {
          // A converted stream gets comments through silent stretches (a native upstream sends its pings).
          frames: keepAlive(
            anthropicFramesOf(events, { model: head.model, route: route.alias }),
            gateway.keepAliveMs,
          ),
          headers: dialectHeaders(request.warnings),
        };
      },
      anthropicErrorFrames,
    );
  });

  app.post("/v1/messages/count_tokens", async (c) => {
    const head = messagesHeadOf(await jsonBody(c));
    validate(z.looseObject({ messages: z.array(z.unknown()) }), head.body);
    gateway.tables.route(c.env, head.model);
    const betas = betasOf(c.req.header("anthropic-beta"));
    const version = c.req.header("anthropic-version");
    // A count is not a model call: the key's route is checked, its limits and usage are not touched.
    const call = { route: head.model, sessionId: headerSessionId(c) ?? head.userId, metered: false };
    const counted = await completeOn(c, gateway, call, async (provider, options) => {
      const native = nativeOf(provider);
      if (native?.countTokens) {
        const warnings: string[] = [];
        const body = countableBody(withoutCarriedThinking(head.body, warnings), warnings);
        try {
          const tokens = await native.countTokens({ body, betas, version, signal: options.signal });
          return { tokens, source: "upstream", warnings };
        } catch (error) {
          // A count the upstream cannot make (no CountTokens for an inference profile, a model without
          // it, a blip) is estimated — a client such as Claude Code must not fail on a count; a refused
          // key or a client that left is not.
          if (!ProviderError.is(error) || error.kind === "auth" || error.kind === "aborted") throw error;
          const status = error.status === undefined ? "" : ` ${error.status}`;
          return {
            tokens: estimateInputTokens(head.body),
            source: "estimate",
            warnings: [
              ...warnings,
              `count_tokens: the upstream did not count (${error.kind}${status}); estimated instead`,
            ],
          };
        }
      }
      return { tokens: estimateInputTokens(head.body), source: "estimate", warnings: [] };
    });
    return c.json({ input_tokens: counted.tokens }, 200, {
      [TOKEN_COUNT_HEADER]: counted.source,
      ...dialectHeaders(counted.warnings),
    });
  });

  return app;
}

/** Whether `provider` takes Messages bodies as they are (see `nativeEndpointOf`). */
function nativeOf(provider: Provider) {
  return nativeEndpointOf(provider, ANTHROPIC_MESSAGES);
}
