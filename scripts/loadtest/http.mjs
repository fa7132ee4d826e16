// HTTP helpers of the load test: every request has a timeout (the gateway under test may hang), SSE bodies
// are read frame by frame with time to first byte and total time, and a few statistics helpers.
// Loopback only: `assertLoopback` refuses any URL that is not http://127.0.0.1.

/** Throws unless `url` is on 127.0.0.1: the load test never talks to another host. */
export function assertLoopback(url) {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" || parsed.hostname !== "127.0.0.1") {
    throw new Error(`loadtest: refusing a non-loopback URL: ${url}`);
  }
}

/**
 * One request with a timeout covering headers and body. Never throws: the answer is
 * `{ status, headers, body, json, ms, error }`, `status` 0, `headers` empty and `error` set (`timeout` or
 * the message) on failure.
 */
export async function request(url, { method = "GET", headers = {}, body, timeoutMs = 5000 } = {}) {
  assertLoopback(url);
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs))),
    });
    const text = await response.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return {
      status: response.status,
      headers: response.headers,
      body: text,
      json,
      ms: performance.now() - started,
      error: undefined,
    };
  } catch (error) {
    return {
      status: 0,
      headers: new Headers(),
      body: "",
      json: undefined,
      ms: performance.now() - started,
      error: isTimeout(error) ? "timeout" : String(error?.cause?.code ?? error?.message ?? error),
    };
  }
}

function isTimeout(error) {
  return error?.name === "TimeoutError" || error?.cause?.name === "TimeoutError";
}

/**
 * Reads an SSE response to its end (or until `timeoutMs`, or `signal`). Never throws. Answers
 * `{ status, frames, ttfbMs, totalMs, error }`: `frames` are `{ event, data, id }` with `data` as text;
 * `ttfbMs` is the time to the first body byte; `error` is `timeout`, `aborted`, `http <status>` or a message.
 */
export async function readSse(url, { method = "GET", headers = {}, body, timeoutMs = 10_000, signal } = {}) {
  assertLoopback(url);
  const started = performance.now();
  const result = { status: 0, frames: [], ttfbMs: undefined, totalMs: undefined, error: undefined };
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)));
  const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
  try {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: combined,
    });
    result.status = response.status;
    if (response.status !== 200 || !response.body) {
      result.error = `http ${response.status}`;
      result.body = await response.text().catch(() => "");
      return result;
    }
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of response.body) {
      result.ttfbMs ??= performance.now() - started;
      pending += decoder.decode(chunk, { stream: true });
      pending = pending.replaceAll("\r\n", "\n");
      let end = pending.indexOf("\n\n");
      while (end !== -1) {
        const frame = parseFrame(pending.slice(0, end));
        if (frame) result.frames.push(frame);
        pending = pending.slice(end + 2);
        end = pending.indexOf("\n\n");
      }
    }
    pending += decoder.decode();
    if (pending.trim() !== "") {
      const frame = parseFrame(pending);
      if (frame) result.frames.push(frame);
    }
  } catch (error) {
    if (timeout.aborted) result.error = "timeout";
    else if (signal?.aborted) result.error = "aborted";
    else result.error = String(error?.cause?.code ?? error?.message ?? error);
  }
  result.totalMs = performance.now() - started;
  return result;
}

/** One SSE frame's fields; `undefined` for a comment-only frame. */
function parseFrame(text) {
  const frame = { event: undefined, data: undefined, id: undefined };
  const data = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") frame.event = value;
    else if (field === "id") frame.id = value;
  }
  if (data.length === 0 && frame.event === undefined) return undefined;
  frame.data = data.join("\n");
  return frame;
}

/** The JSON of a frame's data, or `undefined`. */
export function frameJson(frame) {
  try {
    return JSON.parse(frame.data);
  } catch {
    return undefined;
  }
}

/** Nearest-rank percentile of `values` (`p` in 0–100); `undefined` when empty. */
export function percentile(values, p) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
