// Scenario d: clients that leave before the first byte. The fake upstream holds its answer (1.5 s before
// any byte); each client gives up after 200 ms, before the gateway has anything to send. The gateway must
// then cancel its upstream call (the request's signal, with `enable_request_signal`), which the fake
// upstream sees as a connection closed before it answered (`outcome: "aborted"`).
import { sleep } from "./http.mjs";

/**
 * `{ sent, cancelled, completed, open, byPath }` for `perPath` clients on each path, sent to `url` (the
 * gateway under wrangler dev, or under workerd itself). `tag` keeps the prompts of two runs apart.
 */
export async function leaveScenario(
  ctx,
  { url = ctx.gateway.url, tag = "", perPath = 3, holdMs = 1500, leaveMs = 200 } = {},
) {
  ctx.upstream.configure({ firstByteDelayMs: holdMs, chunkDelayMs: 0, callDelayMs: undefined });
  const paths = [
    ["/v1/complete", (prompt) => ({ route: "chat", messages: [{ role: "user", content: prompt }] })],
    ["/v1/stream", (prompt) => ({ route: "chat", messages: [{ role: "user", content: prompt }] })],
    [
      "/v1/chat/completions",
      (prompt) => ({ model: "chat", stream: true, messages: [{ role: "user", content: prompt }] }),
    ],
  ];
  const prompts = [];
  await Promise.all(
    paths.flatMap(([path, body]) =>
      Array.from({ length: perPath }, async (_, index) => {
        const prompt = `leave${tag} ${path} ${index}`;
        prompts.push({ path, prompt });
        try {
          const response = await fetch(`${url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${ctx.token}`, "content-type": "application/json" },
            body: JSON.stringify(body(prompt)),
            signal: AbortSignal.timeout(leaveMs),
          });
          await response.body?.cancel();
        } catch {
          // The client left: that is the point.
        }
      }),
    ),
  );
  // Long enough for an upstream call that was not cancelled to finish its answer.
  await sleep(holdMs + 500);
  ctx.upstream.configure({ firstByteDelayMs: 0 });
  const calls = await ctx.upstream.calls();
  const result = { sent: prompts.length, cancelled: 0, completed: 0, open: 0, missing: 0, byPath: {} };
  for (const { path, prompt } of prompts) {
    const call = calls.find((candidate) => candidate.conversation === `prompt:${prompt}`);
    const outcome = call
      ? call.outcome === "aborted"
        ? "cancelled"
        : call.outcome === "open"
          ? "open"
          : "completed"
      : "missing";
    result[outcome]++;
    result.byPath[path] ??= { cancelled: 0, completed: 0, open: 0, missing: 0 };
    result.byPath[path][outcome]++;
  }
  return result;
}
