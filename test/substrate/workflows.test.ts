import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/index.ts";
import { fallback, retry, type Workflow, WorkflowRegistry } from "../../src/substrate/index.ts";
import { fake, HI } from "./helpers.ts";

const LOOKUP = { name: "lookup", parameters: { type: "object", properties: { id: { type: "string" } } } };

function triage(overrides: Partial<Workflow> = {}): Workflow {
  return {
    name: "triage",
    route: fake("a", { text: "bug" }),
    system: "Sort the ticket.",
    tools: [LOOKUP],
    limits: { maxTurns: 4, maxTokens: 1024 },
    ...overrides,
  };
}

describe("WorkflowRegistry", () => {
  it("registers, gets, lists in registration order", () => {
    const registry = new WorkflowRegistry();
    const registered = registry.register(triage());
    registry.register(triage({ name: "summarise", tools: undefined, limits: undefined }));
    expect(registry.get("triage")).toBe(registered);
    expect(registry.has("summarise")).toBe(true);
    expect(registry.get("unknown")).toBeUndefined();
    expect(registry.list().map((workflow) => workflow.name)).toEqual(["triage", "summarise"]);
    expect(registered).toMatchObject({
      name: "triage",
      system: "Sort the ticket.",
      limits: { maxTurns: 4, maxTokens: 1024 },
    });
  });

  it("the route is any provider composition, used as registered", async () => {
    const route = fallback([{ provider: retry(fake("a", { text: "ok" })) }]);
    const registry = new WorkflowRegistry([triage({ route })]);
    const workflow = registry.getOrThrow("triage");
    expect(workflow.route).toBe(route);
    expect((await workflow.route.complete(HI)).message.content).toBe("ok");
  });

  it("a duplicate name is an error", () => {
    const registry = new WorkflowRegistry([triage()]);
    expect(() => registry.register(triage())).toThrow(ValidationError);
    expect(() => registry.register(triage())).toThrow(
      'workflow.name: a workflow named "triage" is already registered',
    );
    expect(() => new WorkflowRegistry([triage(), triage()])).toThrow(/already registered/);
  });

  it("registered workflows are frozen copies: later edits of the input change nothing", () => {
    const input = triage();
    const registry = new WorkflowRegistry();
    const registered = registry.register(input);
    (input.limits as { maxTurns: number }).maxTurns = 99;
    (input.tools as unknown[]).push({ name: "extra", parameters: { type: "object" } });
    expect(registered.limits?.maxTurns).toBe(4);
    expect(registered.tools).toHaveLength(1);
    expect(Object.isFrozen(registered)).toBe(true);
    expect(() => {
      (registered as { name: string }).name = "x";
    }).toThrow(TypeError);
  });

  it("validates each workflow, naming the field", () => {
    const registry = new WorkflowRegistry();
    expect(() => registry.register(triage({ name: "" }))).toThrow(/^workflow\.name/);
    expect(() => registry.register(triage({ route: {} as never }))).toThrow(
      "workflow.route: must be a Provider",
    );
    expect(() => registry.register(triage({ limits: { maxTurns: 0 } }))).toThrow(
      /^workflow\.limits\.maxTurns/,
    );
    expect(() => registry.register(triage({ limits: { maxTurn: 3 } as never }))).toThrow(/workflow\.limits/);
    expect(() => registry.register(triage({ tools: [LOOKUP, LOOKUP] }))).toThrow(
      /^workflow\.tools\[1\]\.name: duplicate/,
    );
    expect(registry.list()).toEqual([]);
  });

  it("getOrThrow() on an unknown name suggests the closest registered one", () => {
    const registry = new WorkflowRegistry([triage()]);
    expect(() => registry.getOrThrow("triag")).toThrow(
      'no workflow named "triag"; did you mean "triage"? (registered: triage)',
    );
    expect(() => new WorkflowRegistry().getOrThrow("x")).toThrow("(registered: none)");
  });
});
