// The load test's fake upstream: a tiny OpenAI Chat Completions server on 127.0.0.1 (ephemeral port), so
// the gateway can be driven hard without a model, a key or the network.
//
// - `POST /v1/chat/completions`, streaming (SSE `data: {chunk}` frames, then `data: [DONE]`) or not (one
//   `chat.completion` JSON);
// - the answer is deterministic: `replyFor(prompt)` of the last user message, cut into many small deltas
//   (whole code points, so the multi-byte characters in it cross frame and TCP boundaries intact);
// - with tools and a user turn last it answers with one tool call (the first tool, `{"text": <prompt>}`);
//   after a tool result it answers with final text — so a demo-workflow task takes two model calls;
// - `settings` (mutable between scenarios): the delay before the first byte, between deltas, and a
//   per-call delay range that is deterministic per call (so in-flight calls can be paused and aborted);
// - every call is recorded with its conversation key: the `task <id>` named in the first user message (or
//   the message itself) plus the number of messages. A task step that runs twice asks for the same key twice.
//
// The server runs in a worker thread, on its own event loop: the load test's clients (hundreds of streams
// read in the main thread) do not slow its answers down, nor does it slow their reading.
import { createServer } from "node:http";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

/** Words of the generated replies: plain, accented, emoji (a surrogate pair), and JSON-escaped ones. */
const WORDS = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "gateway",
  "stream",
  "durable",
  "object",
  "naïve",
  "café",
  "Grüße",
  "日本語",
  "🦀",
  "👩‍💻",
  '"quoted"',
  "back\\slash",
  "tab\there",
  "new\nline",
  "<tag>",
  "a&b",
];

/** A 32-bit FNV-1a hash of a string: seeds the per-prompt generators. */
export function hash(text) {
  let h = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    h ^= text.charCodeAt(index);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small seeded PRNG, so runs (and replies) are repeatable. Returns floats in [0, 1). */
export function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The text the fake model answers to `prompt`: deterministic, 24–40 words. */
export function replyFor(prompt) {
  const random = prng(hash(prompt));
  const count = 24 + Math.floor(random() * 17);
  const words = [];
  for (let index = 0; index < count; index++) words.push(WORDS[Math.floor(random() * WORDS.length)]);
  return `Reply to ${prompt}: ${words.join(" ")}.`;
}

/** `text` cut into deltas of 1–6 code points (never inside a surrogate pair), deterministically. */
export function deltasOf(text) {
  const random = prng(hash(text) ^ 0x9e3779b9);
  const points = Array.from(text);
  const deltas = [];
  for (let index = 0; index < points.length; ) {
    const size = 1 + Math.floor(random() * 6);
    deltas.push(points.slice(index, index + size).join(""));
    index += size;
  }
  return deltas;
}

/** The plain text of a Chat Completions message's content (a string or text parts). */
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => part?.text ?? "").join("");
  return "";
}

/** The conversation a request belongs to: `task <id>` in the first user message, else that message. */
export function conversationOf(messages) {
  const first = textOf(messages.find((message) => message?.role === "user")?.content);
  const task = /\btask ([A-Za-z0-9_-]+)/.exec(first);
  return task ? `task:${task[1]}` : `prompt:${first}`;
}

/** What the fake model answers to a request: text, or text and one tool call. */
export function answerFor(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.at(-1);
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  const lastUser = textOf([...messages].reverse().find((message) => message?.role === "user")?.content);
  if (last?.role === "user" && tools.length > 0) {
    const name = tools[0]?.function?.name ?? "tool";
    return {
      text: `Calling ${name}.`,
      toolCall: {
        id: `call_${hash(`${conversationOf(messages)}#${messages.length}`).toString(16)}`,
        name,
        arguments: JSON.stringify({ text: lastUser }),
      },
    };
  }
  if (last?.role === "tool") return { text: replyFor(`tool result ${textOf(last.content)}`) };
  return { text: replyFor(lastUser) };
}

const sleep = (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/**
 * The server itself (in the worker thread). `settings`:
 * `{ firstByteDelayMs, chunkDelayMs, callDelayMs: [min, max] | undefined }`.
 */
async function serve(settings) {
  const state = {
    settings: { firstByteDelayMs: 0, chunkDelayMs: 0, callDelayMs: undefined, ...settings },
    /** Every call: `{ key, conversation, messages, stream, tools, afterFinal, outcome, startedAt, endedAt }`. */
    calls: [],
  };

  const server = createServer((req, res) => {
    if (req.method !== "POST" || !req.url?.startsWith("/v1/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "not_found" } }));
      return;
    }
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "body is not JSON", type: "invalid_request_error" } }));
        return;
      }
      answer(body, res).catch(() => res.destroy());
    });
  });

  /** Answers one call, recording it; a client that goes away mid-answer is recorded as `aborted`. */
  const answer = async (body, res) => {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const conversation = conversationOf(messages);
    const key = `${conversation}#${messages.length}`;
    const call = {
      key,
      conversation,
      messages: messages.length,
      stream: body.stream === true,
      tools: Array.isArray(body.tools) && body.tools.length > 0,
      // A request that ends with an assistant turn without tool calls asks about a finished conversation.
      afterFinal: messages.at(-1)?.role === "assistant" && !messages.at(-1)?.tool_calls?.length,
      outcome: "open",
      startedAt: performance.now(),
      endedAt: undefined,
    };
    state.calls.push(call);
    let gone = false;
    res.on("close", () => {
      if (!res.writableFinished) gone = true;
    });
    const { firstByteDelayMs, chunkDelayMs, callDelayMs } = state.settings;
    const extra = callDelayMs
      ? callDelayMs[0] + (hash(key) % Math.max(1, callDelayMs[1] - callDelayMs[0] + 1))
      : 0;
    await sleep(firstByteDelayMs + extra);
    const reply = answerFor(body);
    const finish = reply.toolCall ? "tool_calls" : "stop";
    const usage = { prompt_tokens: messages.length * 10, completion_tokens: 12, total_tokens: 0 };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const id = `chatcmpl-fake-${hash(key).toString(16)}`;
    const created = Math.floor(Date.now() / 1000);
    if (gone) {
      call.outcome = "aborted";
      call.endedAt = performance.now();
      return;
    }

    if (!call.stream) {
      const message = { role: "assistant", content: reply.text };
      if (reply.toolCall) {
        message.tool_calls = [
          {
            id: reply.toolCall.id,
            type: "function",
            function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments },
          },
        ];
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: body.model ?? "fake",
          choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
          usage,
        }),
      );
      call.outcome = "done";
      call.endedAt = performance.now();
      return;
    }

    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    const send = (delta, finishReason = null, extraFields = {}) =>
      res.write(
        `data: ${JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model: body.model ?? "fake",
          choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
          ...extraFields,
        })}\n\n`,
      );
    send({ role: "assistant", content: "" });
    for (const piece of deltasOf(reply.text)) {
      await sleep(chunkDelayMs);
      if (gone) break;
      send({ content: piece });
    }
    if (reply.toolCall && !gone) {
      // id and name first, then the arguments in two pieces, as OpenAI does.
      const args = reply.toolCall.arguments;
      const half = Math.floor(args.length / 2);
      send({
        tool_calls: [
          {
            index: 0,
            id: reply.toolCall.id,
            type: "function",
            function: { name: reply.toolCall.name, arguments: "" },
          },
        ],
      });
      await sleep(chunkDelayMs);
      send({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] });
      await sleep(chunkDelayMs);
      send({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] });
    }
    if (gone) {
      call.outcome = "aborted";
      call.endedAt = performance.now();
      return;
    }
    send({}, finish);
    if (body.stream_options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model ?? "fake", choices: [], usage })}\n\n`,
      );
    }
    res.end("data: [DONE]\n\n");
    call.outcome = "done";
    call.endedAt = performance.now();
  };

  // Idle keep-alive connections stay open for the whole run: a server closing one just as workerd reuses it
  // fails that call with "Network connection lost", a race of the fake server, not of the gateway.
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return { port: server.address().port, state, server };
}

// In the worker thread: serve, and answer the main thread's messages (settings, the call log, close).
if (!isMainThread && workerData?.fakeUpstream) {
  const { port, state, server } = await serve(workerData.settings);
  parentPort.on("message", (message) => {
    if (message.type === "settings") state.settings = { ...state.settings, ...message.settings };
    else if (message.type === "calls")
      parentPort.postMessage({ type: "calls", id: message.id, calls: state.calls });
    else if (message.type === "close") {
      server.closeAllConnections();
      server.close(() => parentPort.postMessage({ type: "closed" }));
    }
  });
  parentPort.postMessage({ type: "listening", port });
}

/**
 * Starts the fake upstream in a worker thread. Answers `{ port, baseURL, configure(settings), calls(),
 * close() }`: `configure` changes the delays between scenarios, `calls()` resolves to the call log.
 */
export async function startFakeUpstream(settings = {}) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { fakeUpstream: true, settings } });
  const pending = new Map();
  let nextId = 0;
  const port = await new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", (message) => resolve(message.port));
  });
  worker.on("message", (message) => {
    if (message.type === "calls") {
      pending.get(message.id)?.(message.calls);
      pending.delete(message.id);
    }
  });
  return {
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    configure(next) {
      worker.postMessage({ type: "settings", settings: next });
    },
    /** Every call so far: `{ key, conversation, messages, stream, tools, afterFinal, outcome, … }`. */
    calls() {
      const id = nextId++;
      return new Promise((resolve) => {
        // A thread that does not answer within 2 s counts as no calls, rather than hanging the run.
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve([]);
        }, 2000);
        pending.set(id, (calls) => {
          clearTimeout(timer);
          resolve(calls);
        });
        worker.postMessage({ type: "calls", id });
      });
    },
    /** Drops every connection and stops the thread (within a second, whatever happens). */
    async close() {
      const closed = new Promise((resolve) => worker.on("message", (m) => m.type === "closed" && resolve()));
      worker.postMessage({ type: "close" });
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
      await worker.terminate();
    },
  };
}
