/**
 * The README's curl lines run as written: every `curl` in the "Run it locally" and "Routes" blocks is
 * parsed (quotes, `$T`/`$J`/`$W` from the block's own assignments, `-X`, `-H`, `-d`, `-N`) and sent, in
 * order, to the deployed entry point in workerd with the local configuration (`wrangler.toml`'s routes
 * and the token of `.dev.vars.example`, which test/worker/vitest.config.ts adds to the test tokens).
 * Each must answer 2xx with the body its route promises.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import devVars from "../../.dev.vars.example?raw";
import readme from "../../README.md?raw";
import wranglerToml from "../../wrangler.toml?raw";
import { holdAlarms } from "./helpers.ts";

/** The first ```sh block after `heading`. */
function shBlock(heading: string): string {
  const start = readme.indexOf(heading);
  expect(start, heading).toBeGreaterThan(-1);
  const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(start));
  expect(match, `a sh block under ${heading}`).not.toBeNull();
  return match![1]!;
}

/** Splits a shell line into words: single and double quotes, `$NAME` expansion, `#` comments. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (char === "'" || char === '"') {
      const end = line.indexOf(char, i + 1);
      expect(end, `unterminated quote in: ${line}`).toBeGreaterThan(i);
      const quoted = line.slice(i + 1, end);
      word = (word ?? "") + (char === '"' ? expand(quoted, vars) : quoted);
      i = end;
    } else if (char === " " || char === "\t") {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if (char === "#" && word === undefined) {
      break;
    } else if (char === "$") {
      const name = /^\$([A-Z_]+)/.exec(line.slice(i))![1]!;
      word = (word ?? "") + expand(`$${name}`, vars);
      i += name.length;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$([A-Z_]+)/g, (_, name: string) => {
    expect(vars, `$${name} is set before it is used`).toHaveProperty(name);
    return vars[name]!;
  });
}

interface Curl {
  line: string;
  method: string;
  url: string;
  headers: Headers;
  body: string | undefined;
  stream: boolean;
}

/** The curl commands of a block, with the block's own `NAME='value'` assignments applied. */
function curls(block: string): Curl[] {
  const vars: Record<string, string> = {};
  const out: Curl[] = [];
  for (const line of block.replace(/\\\n\s*/g, "").split("\n")) {
    const trimmed = line.trim();
    if (/^[A-Z]+=/.test(trimmed)) {
      for (const assignment of trimmed.split(/;\s*/)) {
        const [, name, value] = /^([A-Z_]+)=(.*)$/.exec(assignment)!;
        vars[name!] = words(value!, vars).join(" ");
      }
      continue;
    }
    if (!trimmed.startsWith("curl ")) continue;
    const args = words(trimmed, vars).slice(1);
    const curl: Curl = {
      line: trimmed,
      method: "GET",
      url: "",
      headers: new Headers(),
      body: undefined,
      stream: false,
    };
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === "-X") curl.method = args[++i]!;
      else if (arg === "-H") {
        const header = args[++i]!;
        const colon = header.indexOf(":");
        curl.headers.set(header.slice(0, colon).trim(), header.slice(colon + 1).trim());
      } else if (arg === "-d") {
        curl.body = args[++i]!;
        if (curl.method === "GET") curl.method = "POST";
      } else if (arg === "-N") curl.stream = true;
      else if (arg === "-s") continue;
      else {
        expect(arg.startsWith("-"), `an option this test does not know: ${arg} in ${trimmed}`).toBe(false);
        curl.url = /^https?:\/\//.test(arg) ? arg : `http://${arg}`;
      }
    }
    expect(curl.url, trimmed).toMatch(/^http:\/\/localhost:8787\//);
    out.push(curl);
  }
  return out;
}

/** What came back: the status, and the body (for an event stream, what arrived before it ended or 64 KiB). */
async function send(curl: Curl): Promise<{ status: number; type: string; text: string }> {
  const response = await exports.default.fetch(curl.url, {
    method: curl.method,
    headers: curl.headers,
    ...(curl.body === undefined ? {} : { body: curl.body }),
  });
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream"))
    return { status: response.status, type, text: await response.text() };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  // A task's event stream stays open while the task runs: what it sent first is what a curl user sees.
  while (text.length < 65_536 && !/\n\n/.test(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return { status: response.status, type, text };
}

describe("README curls, against the local configuration", () => {
  it("the local token is the one .dev.vars.example sets", () => {
    expect(devVars).toMatch(/^GATEWAY_TOKENS=local-dev-token$/m);
  });

  it('"Run it locally": each curl answers 2xx', async () => {
    const commands = curls(shBlock("### Run it locally"));
    expect(commands).toHaveLength(2);
    const [health, chat] = await Promise.all(commands.map(send));
    expect(health!.status, commands[0]!.line).toBe(200);
    expect(JSON.parse(health!.text)).toMatchObject({ ok: true });
    expect(chat!.status, commands[1]!.line).toBe(200);
    expect(JSON.parse(chat!.text)).toMatchObject({ object: "chat.completion", model: "demo" });
  });

  it("the local demo route waits long enough to pause a demo task by hand", () => {
    const config = /^MODELWIRE_CONFIG = '''([\s\S]*?)'''/m.exec(wranglerToml)?.[1];
    const demo = (JSON.parse(config!) as { routes: Record<string, { demo?: boolean; delayMs?: number }> })
      .routes.demo;
    expect(demo).toMatchObject({ demo: true });
    expect(demo!.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it('"Routes": each curl answers 2xx, in order', async () => {
    const commands = curls(shBlock("### Routes\n"));
    expect(commands.length).toBeGreaterThanOrEqual(12);
    // The test config's demo model answers at once, where the local one waits 3 s (checked above): hold the
    // task's alarms, so it is still running when the README's pause arrives, as it is for a person at a shell.
    const tasks = [...new Set(commands.flatMap((curl) => /\/v1\/tasks\/([\w-]+)/.exec(curl.url)?.[1] ?? []))];
    expect(tasks).toEqual(["t1"]);
    for (const task of tasks) await holdAlarms(env.TASKS.get(env.TASKS.idFromName(task)));
    for (const curl of commands) {
      const result = await send(curl);
      expect(
        result.status,
        `${curl.line}\n→ ${result.status} ${result.text.slice(0, 300)}`,
      ).toBeGreaterThanOrEqual(200);
      expect(result.status, `${curl.line}\n→ ${result.status} ${result.text.slice(0, 300)}`).toBeLessThan(
        300,
      );
      if (curl.stream) {
        expect(result.type, curl.line).toMatch(/^text\/event-stream/);
        expect(result.text, curl.line).toMatch(/^(event|data|id): /m);
        expect(result.text, curl.line).not.toMatch(/^event: error$/m);
      } else {
        expect(() => JSON.parse(result.text), `${curl.line}: ${result.text.slice(0, 200)}`).not.toThrow();
      }
    }
  });
});
