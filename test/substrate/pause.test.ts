import { describe, expect, it, vi } from "vitest";
import { checkPause, isStopStatus } from "../../src/substrate/index.ts";

function logger() {
  return { warn: vi.fn((_message: string) => {}), info: vi.fn((_message: string) => {}) };
}

/** A string enum as erasable TypeScript writes one (the project compiles with erasableSyntaxOnly). */
const TaskStatus = { Running: "running", Paused: "paused", Suspended: "SUSPENDED" } as const;
type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

describe("isStopStatus", () => {
  it("stop statuses stop, in any case; others run", () => {
    const log = logger();
    for (const status of [
      "paused",
      "suspended",
      "aborted",
      "cancelled",
      "canceled",
      "stopped",
      "PAUSED",
      " Suspended ",
    ]) {
      expect([status, isStopStatus(status, { logger: log })]).toEqual([status, true]);
    }
    for (const status of ["running", "queued", "done", "failed", ""]) {
      expect([status, isStopStatus(status, { logger: log })]).toEqual([status, false]);
    }
    expect(log.warn).not.toHaveBeenCalled();
  });

  it("accepts a string enum", () => {
    expect(isStopStatus(TaskStatus.Paused)).toBe(true);
    expect(isStopStatus(TaskStatus.Suspended)).toBe(true);
    expect(isStopStatus(TaskStatus.Running)).toBe(false);
  });

  it("accepts an object with a status property, a getter, a plain row and a Map", () => {
    class Task {
      readonly id = 1;
      get status(): TaskStatus | "aborted" {
        return "aborted";
      }
    }
    expect(isStopStatus(new Task())).toBe(true);
    expect(isStopStatus({ status: TaskStatus.Paused })).toBe(true);
    expect(isStopStatus({ id: 7, status: "suspended", updated_at: "2026-01-01" })).toBe(true);
    expect(isStopStatus(Object.assign(Object.create(null), { status: "stopped" }))).toBe(true);
    expect(isStopStatus(new Map([["status", "paused"]]))).toBe(true);
    expect(isStopStatus({ status: "running" })).toBe(false);
    expect(isStopStatus({ status: new String("paused") })).toBe(true);
  });

  it("unknown shapes read as running with one warning line, never a crash", () => {
    const throwing = {
      get status(): string {
        throw new Error("lazy load failed");
      },
    };
    const proxy = new Proxy(
      {},
      {
        has() {
          throw new Error("trap");
        },
      },
    );
    for (const value of [
      {},
      { state: "paused" },
      { status: 3 },
      { status: null },
      42,
      true,
      ["paused"],
      new Map(),
      throwing,
      proxy,
    ]) {
      const log = logger();
      expect(isStopStatus(value, { logger: log })).toBe(false);
      expect(log.warn).toHaveBeenCalledTimes(1);
    }
  });

  it("no status at all (undefined / null) is running, quietly", () => {
    const log = logger();
    expect(isStopStatus(undefined, { logger: log })).toBe(false);
    expect(isStopStatus(null, { logger: log })).toBe(false);
    expect(log.warn).not.toHaveBeenCalled();
  });

  it("a logger that throws does not make the check throw", () => {
    const broken = {
      warn: () => {
        throw new Error("logger down");
      },
    };
    expect(isStopStatus({}, { logger: broken })).toBe(false);
  });
});

describe("checkPause", () => {
  it("reads a value or a (possibly async) source, and logs a stop", async () => {
    const log = logger();
    expect(await checkPause({ status: "suspended" }, { logger: log })).toEqual({
      stop: true,
      status: "suspended",
    });
    expect(log.info).toHaveBeenCalledTimes(1);
    expect(log.info.mock.calls[0]![0]).toContain('"suspended"');
    expect(await checkPause(async () => ({ status: "running" }), { logger: log })).toEqual({
      stop: false,
      status: "running",
    });
    expect(await checkPause(() => "PAUSED", { logger: log })).toEqual({ stop: true, status: "paused" });
    expect(await checkPause(Promise.resolve("aborted"), { logger: log })).toEqual({
      stop: true,
      status: "aborted",
    });
  });

  it("a source that throws reads as running, with a warning", async () => {
    const log = logger();
    const state = await checkPause(
      () => {
        throw new Error("db down");
      },
      { logger: log },
    );
    expect(state).toEqual({ stop: false, status: undefined });
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0]![0]).toContain("db down");
  });

  it("an unknown shape reads as running with one warning", async () => {
    const log = logger();
    expect(await checkPause({ state: "x" }, { logger: log })).toEqual({ stop: false, status: undefined });
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.info).not.toHaveBeenCalled();
  });

  it("a logger without info logs a stop through warn", async () => {
    const warn = vi.fn();
    await checkPause("paused", { logger: { warn } });
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe("pause: gaps mutation testing found", () => {
  it('mutation gap 9: a boxed String("paused") stops, as a status field and as the value itself', async () => {
    const boxed = new String("Paused");
    expect(isStopStatus(boxed)).toBe(true);
    expect(isStopStatus({ status: boxed })).toBe(true);
    expect(isStopStatus(new Map([["status", boxed]]))).toBe(true);
    expect(await checkPause(() => boxed)).toEqual({ stop: true, status: "paused" });
    expect(isStopStatus(new String("running"))).toBe(false);
  });
});

describe("pause: the lines it logs say what it found", () => {
  const warned = (value: unknown) => {
    const log = logger();
    expect(isStopStatus(value, { logger: log })).toBe(false);
    expect(log.warn).toHaveBeenCalledTimes(1);
    return log.warn.mock.calls[0]![0];
  };

  it("an unknown shape is described: an array, a scalar's type, an object's first five keys, or none", () => {
    const running = "; treating it as running";
    expect(warned(["paused"])).toBe(`modelwire: pause check found no status in an array${running}`);
    expect(warned(7)).toBe(`modelwire: pause check found no status in a number${running}`);
    expect(warned(true)).toBe(`modelwire: pause check found no status in a boolean${running}`);
    expect(warned({})).toBe(`modelwire: pause check found no status in an object without keys${running}`);
    expect(warned({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 })).toBe(
      `modelwire: pause check found no status in an object with keys a, b, c, d, e${running}`,
    );
    expect(warned({ status: 3 })).toBe(
      `modelwire: pause check found no status in an object with keys status${running}`,
    );
    expect(warned(new Map([["state", "paused"]]))).toBe(
      `modelwire: pause check found no status in an object without keys${running}`,
    );
  });

  it("a status that cannot be read names the error; a thrown non-Error is printed as it is", async () => {
    const getter = {
      get status(): string {
        throw new TypeError("row closed");
      },
    };
    expect(warned(getter)).toBe(
      "modelwire: pause check could not read a status (TypeError: row closed); running",
    );
    const log = logger();
    expect(
      await checkPause(
        () => {
          throw "timeout";
        },
        { logger: log },
      ),
    ).toEqual({ stop: false, status: undefined });
    expect(log.warn.mock.calls[0]![0]).toBe(
      "modelwire: pause check could not read the task status (timeout); running",
    );
  });

  it("a stop is one info line naming the status; running and no status log nothing", async () => {
    const log = logger();
    await checkPause({ status: " Stopped " }, { logger: log });
    expect(log.info.mock.calls).toEqual([['modelwire: task status is "stopped"; stopping at this boundary']]);
    await checkPause("running", { logger: log });
    await checkPause(undefined, { logger: log });
    await checkPause(null, { logger: log });
    expect(log.info).toHaveBeenCalledTimes(1);
    expect(log.warn).not.toHaveBeenCalled();
  });

  it("a logger that throws never turns a check into a crash", async () => {
    const broken = {
      warn: () => {
        throw new Error("log sink down");
      },
      info: () => {
        throw new Error("log sink down");
      },
    };
    expect(isStopStatus({ state: 1 }, { logger: broken })).toBe(false);
    expect(await checkPause("paused", { logger: broken })).toEqual({ stop: true, status: "paused" });
  });
});
