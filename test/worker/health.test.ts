import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("worker in workerd", () => {
  it("answers /health through the deployed entry point", async () => {
    const response = await exports.default.fetch("http://worker.test/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, name: "modelwire" });
  });
});
