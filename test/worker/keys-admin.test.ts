/**
 * Virtual keys through the admin API, in workerd with the real `KeyObject`: the lifecycle (create → use →
 * patch → revoke → 401), allowed routes, expiry, disabled keys, what the admin API takes and refuses, and
 * the admin API refusing gateway tokens and keys while the gateway's routes refuse admin tokens.
 */
import { describe, expect, it } from "vitest";
import readme from "../../README.md?raw";
import { gatewayEnv } from "./helpers.ts";
import { ADMIN, keyGateway } from "./key-helpers.ts";

describe("virtual keys: the lifecycle", () => {
  it("create → use → patch → revoke → 401, the key shown once and never stored", async () => {
    const g = keyGateway();
    const created = await g.createKey({ name: "ci-bot", metadata: { team: "infra" }, rpm: 10 });
    expect(created.key).toMatch(/^sk-mw-[0-9a-f]{16}-[A-Za-z0-9_-]{43}$/);
    expect(created.key.slice(6, 22)).toBe(created.id);
    expect(created).toMatchObject({ name: "ci-bot", metadata: { team: "infra" }, rpm: 10, disabled: false });

    // The key works on the gateway's routes, as Bearer and as x-api-key.
    const used = await g.chat(created.key);
    expect(used.status).toBe(200);
    expect(
      ((await used.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
    ).toBe("hello from gpt");
    const viaApiKey = await g.call("/v1/models", {
      headers: { authorization: "", "x-api-key": created.key },
    });
    expect(viaApiKey.status).toBe(200);

    // Neither GET shows the key's text (nor anything of it past the id).
    const one = await g.admin(`/v1/admin/keys/${created.id}`);
    const shown = await one.text();
    expect(one.status).toBe(200);
    expect(shown).not.toContain(created.key.slice(23));
    expect(JSON.parse(shown)).toMatchObject({
      id: created.id,
      name: "ci-bot",
      state: { window: { requests: 1 } },
    });
    const list = await (await g.admin("/v1/admin/keys")).text();
    expect(list).toContain(created.id);
    expect(list).not.toContain(created.key.slice(23));

    // A patch takes effect on the next request: disabled → 401 saying so; enabled again → 200.
    const patched = await g.admin(`/v1/admin/keys/${created.id}`, {
      method: "PATCH",
      json: { disabled: true, rpm: null },
    });
    expect(patched.status).toBe(200);
    const record = (await patched.json()) as Record<string, unknown>;
    expect(record.disabled).toBe(true);
    expect("rpm" in record).toBe(false);
    const refused = await g.chat(created.key);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({
      error: { code: "invalid_api_key", message: "this key is disabled" },
    });
    await g.admin(`/v1/admin/keys/${created.id}`, { method: "PATCH", json: { disabled: false } });
    expect((await g.chat(created.key)).status).toBe(200);

    // Revoked: 401, gone from the list and GET, and the upstream never called for it.
    const calls = g.calls.length;
    const deleted = await g.admin(`/v1/admin/keys/${created.id}`, { method: "DELETE" });
    expect(await deleted.json()).toEqual({ id: created.id, deleted: true });
    const after = await g.chat(created.key);
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    expect(g.calls.length).toBe(calls);
    expect((await g.admin(`/v1/admin/keys/${created.id}`)).status).toBe(404);
    expect(await (await g.admin("/v1/admin/keys")).text()).not.toContain(created.id);
    expect((await g.admin(`/v1/admin/keys/${created.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("a key whose secret is wrong (right id) is refused like an unknown one", async () => {
    const g = keyGateway();
    const created = await g.createKey({ name: "forged" });
    const forged = `${created.key.slice(0, 23)}${"A".repeat(43)}`;
    const response = await g.chat(forged);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { message: "missing or invalid bearer token" } });
  });

  it("routes: a key calls only the routes it lists (by name or alias), and /v1/models lists only those", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "gpt-only", routes: ["gpt"] });
    expect((await g.chat(key, "gpt")).status).toBe(200);
    const calls = g.calls.length;
    const refused = await g.chat(key, "claude");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: {
        type: "permission_error",
        code: "route_not_allowed",
        message: 'this key may not use the route "claude"',
      },
    });
    // Refused in the Anthropic dialect on /v1/messages too, and never sent upstream.
    const messages = await g.call("/v1/messages", {
      json: { model: "claude", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
      headers: { "x-api-key": key, authorization: "" },
    });
    expect(messages.status).toBe(403);
    expect(await messages.json()).toMatchObject({ type: "error", error: { type: "permission_error" } });
    expect(g.calls.length).toBe(calls);
    const listed = await g.call("/v1/models", { headers: { authorization: `Bearer ${key}` } });
    const models = (await listed.json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(["gpt"]);
  });

  it("expiry: a key past its expiresAt is refused with a 401 saying when it expired", async () => {
    const g = keyGateway();
    const past = new Date(Date.now() - 1000).toISOString();
    const { key } = await g.createKey({ name: "expired", expiresAt: past });
    const response = await g.chat(key);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { message: `this key expired at ${past}` } });
    const later = await g.createKey({
      name: "later",
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await g.chat(later.key)).status).toBe(200);
  });

  it("a gateway with ADMIN_TOKENS and no GATEWAY_TOKENS serves virtual keys only", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "keys-only" });
    const keysOnly = { ...gatewayEnv, GATEWAY_TOKENS: undefined };
    const models = await g.call("/v1/models", { headers: { authorization: `Bearer ${key}` } }, keysOnly);
    expect(models.status).toBe(200);
    const stranger = await g.call(
      "/v1/models",
      { headers: { authorization: "Bearer test-token-a" } },
      keysOnly,
    );
    expect(stranger.status).toBe(401);
    expect(await stranger.json()).toMatchObject({ error: { message: "missing or invalid bearer token" } });
  });

  it("tasks are not for virtual keys: a 403 that says why", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "no-tasks" });
    const response = await g.call("/v1/tasks", {
      json: { workflow: "demo" },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { kind: "forbidden", code: "tasks_not_allowed" } });
  });
});

describe("the admin API", () => {
  it("refuses gateway tokens and virtual keys; the gateway's routes refuse admin tokens", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "not-admin" });
    for (const token of ["test-token-a", key, "nonsense"]) {
      const response = await g.call("/v1/admin/keys", { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        error: { kind: "auth", message: "missing or invalid admin token" },
      });
    }
    const chat = await g.chat(ADMIN);
    expect(chat.status).toBe(401);
    const models = await g.call("/v1/models", { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(models.status).toBe(401);
  });

  it("is closed without ADMIN_TOKENS, and has no virtual keys without a KEYS binding", async () => {
    const g = keyGateway();
    const closed = await g.call(
      "/v1/admin/keys",
      { headers: { authorization: `Bearer ${ADMIN}` } },
      {
        ...gatewayEnv,
        ADMIN_TOKENS: undefined,
      },
    );
    expect(closed.status).toBe(401);
    expect(await closed.json()).toMatchObject({
      error: { message: expect.stringContaining("no ADMIN_TOKENS") },
    });
    const unbound = await g.admin(
      "/v1/admin/keys",
      { json: { name: "x" } },
      { ...gatewayEnv, KEYS: undefined },
    );
    expect(unbound.status).toBe(500);
    expect(await unbound.text()).toContain("KEYS");
  });

  it("names each bad field of a key, and takes nothing it does not know", async () => {
    const g = keyGateway();
    const response = await g.admin("/v1/admin/keys", {
      json: { rpm: 0, tpm: 1.5, budget: { usd: -1, period: "week" }, expiresAt: "soon", owner: "x" },
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { issues: { path: string }[] } };
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(
      ["budget.period", "budget.usd", "expiresAt", "name", "owner", "rpm", "tpm"].sort(),
    );
    const patch = await g.admin(`/v1/admin/keys/${"0".repeat(16)}`, {
      method: "PATCH",
      json: { name: null },
    });
    expect(patch.status).toBe(400);
    expect(
      (await g.admin(`/v1/admin/keys/${"0".repeat(16)}`, { method: "PATCH", json: { rpm: 5 } })).status,
    ).toBe(404);
    expect((await g.admin("/v1/admin/keys/not-an-id")).status).toBe(404);
  });

  it("pages the key list in id order", async () => {
    const g = keyGateway();
    const made = await Promise.all([1, 2, 3].map((n) => g.createKey({ name: `page-${n}` })));
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 100; page++) {
      const response = await g.admin(`/v1/admin/keys?limit=2${after ? `&after=${after}` : ""}`);
      const body = (await response.json()) as { data: { id: string }[]; has_more: boolean; last_id?: string };
      seen.push(...body.data.map((record) => record.id));
      expect(body.data.length).toBeLessThanOrEqual(2);
      if (!body.has_more) break;
      after = body.last_id;
    }
    for (const key of made) expect(seen).toContain(key.id);
    expect([...seen].sort()).toEqual(seen);
    expect((await g.admin("/v1/admin/keys?limit=0")).status).toBe(400);
  });
});

describe("the README's admin API examples", () => {
  it("every request of the Team keys block is accepted as written (the example id replaced by a real one)", async () => {
    const start = readme.indexOf("### Team keys");
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))![1]!;
    const curls = block.split("\n").filter((line) => line.startsWith("curl "));
    expect(curls.length).toBeGreaterThanOrEqual(7);
    const g = keyGateway({
      config: { routes: { claude: { demo: true }, gpt: { demo: true } } },
    });
    let id = "";
    for (const line of curls) {
      const method = /-X (\w+)/.exec(line)?.[1] ?? (line.includes(" -d '") ? "POST" : "GET");
      const url = /\$W(\/v1\/admin\/[^\s"']*)/.exec(line)![1]!.replace("3f2a9c0d1e4b5a67", id);
      const body = /-d '([^']*)'/.exec(line)?.[1];
      const response = await g.admin(url, {
        method,
        ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
      });
      expect(response.status, line).toBeLessThan(300);
      const answer = (await response.json()) as { id?: string; key?: string };
      if (method === "POST") {
        id = answer.id!;
        // The key the README says is shown once, with the id inside it.
        expect(answer.key).toContain(`sk-mw-${id}-`);
      }
    }
    expect(id).toMatch(/^[0-9a-f]{16}$/);
  });
});
