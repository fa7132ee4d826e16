/**
 * `POST /v1/responses`: the OpenAI Responses API over every route, stateless — a Responses request in, a
 * `Response` object (JSON) or the Responses event stream (SSE) out, for `openai`'s `responses.create` /
 * `responses.stream`, the AI SDK's default `openai(…)` provider and Codex.
 *
 * - A route member that speaks the Responses protocol gets the client's body as it was sent (see
 *   `../responses-dialect/passthrough.ts`), kept stateless: `store: false` when absent, `conversation` and
 *   `background: true` refused, the gateway's own reasoning envelopes left out (with a warning).
 * - Any other member gets the request converted to a neutral call (`../responses-dialect/request.ts`), and
 *   its answer written in the Responses dialect (`response.ts`, `stream.ts`), the route's reasoning
 *   carried in `encrypted_content` when the client asks for `reasoning.encrypted_content`.
 *
 * `previous_response_id` is refused everywhere (a 400 naming it): the gateway stores no responses, so the
 * client sends the whole input each turn. What a call lost or changed is listed in the response's
 * `warnings` field (modelwire's extension) and, as far as it is known before the answer starts, in the
 * `x-modelwire-warnings` header (a JSON array).
 *
 * @module
 */

import * as z from "zod/mini";
import { SessionIdSchema } from "../../core/call-options.ts";
import type { Provider } from "../../core/provider.ts";
import { ValidationError } from "../../core/validation-error.ts";
import { nativeEndpointOf } from "../../providers/native.ts";
import { completeOn, framesOn, type RouteCalls } from "../call-route.ts";
import { completedOrRaw } from "../chat-completions.ts";
import type { Gateway } from "../env.ts";
import { Hono } from "../hono.ts";
import { keepAlive } from "../keep-alive.ts";
import { contentStream } from "../pool.ts";
import { headerSessionId, jsonBody } from "../request.ts";
import { dialectHeaders } from "../response-headers.ts";
import { PassthroughStream, passthroughJSON } from "../responses-dialect/passthrough.ts";
import { type NeutralResponsesCall, responsesRequestToNeutral } from "../responses-dialect/request.ts";
import { type ResponseBase, responseOfNeutral, responsesId } from "../responses-dialect/response.ts";
import { ResponsesStreamWriter } from "../responses-dialect/stream.ts";
import type { ErrorFrames } from "../write-sse.ts";

/** The protocol a member must speak for the body to pass through. */
const RESPONSES_PROTOCOL = "openai-responses";

/** The body's top-level fields every route reads: an object with a model, and no stored state asked for. */
function readBody(value: unknown): Record<string, unknown> & { model: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ValidationError([{ path: "body", message: "expected a JSON object" }]);
  const body = value as Record<string, unknown>;
  if (typeof body.model !== "string" || body.model === "")
    throw new ValidationError([{ path: "model", message: "required: a model (a route name)" }]);
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw new ValidationError([
      {
        path: "previous_response_id",
        message:
          "the gateway does not store responses, so previous_response_id cannot be resolved: send the whole input each turn (store: false)",
      },
    ]);
  }
  return body as Record<string, unknown> & { model: string };
}

/** The session of a request: `x-session-id`, else `prompt_cache_key` when it is a valid session id. */
function sessionOf(header: string | undefined, body: Record<string, unknown>): string | undefined {
  if (header !== undefined) return header;
  const key = body.prompt_cache_key;
  return typeof key === "string" && z.safeParse(SessionIdSchema, key).success ? key : undefined;
}

/** The Responses route of a gateway. */
export function responsesRoutes(gateway: RouteCalls): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.post("/v1/responses", async (c) => {
    const body = readBody(await jsonBody(c));
    const route = gateway.tables.route(c.env, body.model);
    const stream = body.stream === true;
    const sessionId = sessionOf(headerSessionId(c), body);
    const call = { route: body.model, sessionId };
    const base: ResponseBase = {
      id: responsesId("resp"),
      createdAt: Math.floor(Date.now() / 1000),
      model: body.model,
      request: undefined,
    };
    // Converted once, for the first member that does not pass the body through.
    let converted: NeutralResponsesCall | undefined;
    const convert = () => {
      converted ??= responsesRequestToNeutral(body, route.alias);
      base.request = converted.request;
      return converted;
    };
    const native = (provider: Provider) => nativeEndpointOf(provider, RESPONSES_PROTOCOL);

    if (!stream) {
      return completeOn(c, gateway, call, async (provider, options) => {
        const endpoint = native(provider);
        if (endpoint) return passthroughJSON(endpoint, body, options.signal);
        const request = convert();
        const response = await completedOrRaw(
          provider.complete(request.messages, request.tools, { ...request.options, ...options }),
        );
        const object = responseOfNeutral(response, base, {
          route: route.alias,
          carryReasoning: request.carryReasoning,
          customTools: request.customTools,
          warnings: request.warnings,
        });
        return Response.json(object, { headers: dialectHeaders(request.warnings) });
      });
    }

    // The frames that end a failed stream are those of the path the member took (numbered on from it).
    let ending: ErrorFrames = new ResponsesStreamWriter(base, {
      route: route.alias,
      carryReasoning: false,
      customTools: new Set(),
      warnings: [],
    }).errorFrames;
    return framesOn(
      c,
      gateway,
      call,
      async (provider, options) => {
        const endpoint = native(provider);
        if (endpoint) {
          const passthrough = new PassthroughStream(base);
          ending = passthrough.errorFrames;
          const opened = await passthrough.open(endpoint, body, options.signal);
          return { ...opened, frames: keepAlive(opened.frames, gateway.keepAliveMs) };
        }
        const request = convert();
        const writer = new ResponsesStreamWriter(base, {
          route: route.alias,
          carryReasoning: request.carryReasoning,
          customTools: request.customTools,
          warnings: request.warnings,
        });
        ending = writer.errorFrames;
        // Opened once the member sent its first content event: a failure before that fails over.
        const events = await contentStream(provider, (member) =>
          member.stream(request.messages, request.tools, { ...request.options, ...options }),
        );
        return {
          frames: keepAlive(writer.frames(events), gateway.keepAliveMs),
          headers: dialectHeaders(request.warnings),
        };
      },
      (failure, expose) => ending(failure, expose),
    );
  });

  return app;
}
