/**
 * `POST /v1/chat/completions`: the OpenAI-compatible facade over every route — a Chat Completions
 * request in, a `chat.completion` (JSON) or `chat.completion.chunk`s (SSE, ending with `[DONE]`) out. The
 * mapping itself is `../chat-completions.ts`. Failures are in OpenAI's shape: an HTTP error before the
 * stream started (`app.onError`), else a final `data: {"error": {…}}` frame and no `[DONE]`
 * (`chatErrorFrames`). Keep-alives are SSE comments: never an event OpenAI clients would have to parse.
 *
 * @module
 */

import { completeOn, type RouteCalls, streamOn } from "../call-route.ts";
import {
  chatChunksOf,
  chatCompletionOf,
  chatErrorFrames,
  chatRequestToNeutral,
  completedOrRaw,
} from "../chat-completions.ts";
import type { Gateway } from "../env.ts";
import { Hono } from "../hono.ts";
import { headerSessionId, jsonBody } from "../request.ts";

/** The Chat Completions route of a gateway. */
export function chatCompletionRoutes(gateway: RouteCalls): Hono<Gateway> {
  const app = new Hono<Gateway>();

  app.post("/v1/chat/completions", async (c) => {
    const request = chatRequestToNeutral(await jsonBody(c));
    const call = {
      route: request.route,
      sessionId: request.sessionId ?? headerSessionId(c),
      options: request.options,
    };
    const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
    const created = Math.floor(Date.now() / 1000);
    if (!request.stream) {
      const response = await completeOn(c, gateway, call, (provider, options) =>
        completedOrRaw(provider.complete(request.messages, request.tools, options)),
      );
      return c.json(chatCompletionOf(response, request.route, id, created));
    }
    return streamOn(
      c,
      gateway,
      call,
      (provider, options) => provider.stream(request.messages, request.tools, options),
      (events) => chatChunksOf(events, request.route, id, created, request.includeUsage),
      chatErrorFrames,
    );
  });

  return app;
}
