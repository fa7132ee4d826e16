/**
 * CONTRIBUTING.md and the contract's module doc (src/protocols/protocol.ts) describe adding a provider
 * together: one points at the other, they name the same files, and every repository path CONTRIBUTING
 * names exists — so a contributor following it never looks for a file that moved.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const contributing = readFileSync(join(root, "CONTRIBUTING.md"), "utf8");
const contract = readFileSync(join(root, "src/protocols/protocol.ts"), "utf8");
const contractDoc = contract.slice(0, contract.indexOf("@module"));

/** The backticked names of `text` that look like repository paths or file names. */
function backticked(text: string, pattern: RegExp): string[] {
  return [...new Set([...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!))].filter((name) =>
    pattern.test(name),
  );
}

describe("CONTRIBUTING.md", () => {
  it("and the contract's module doc point at each other", () => {
    expect(contractDoc).toContain("CONTRIBUTING.md");
    expect(contributing).toContain("src/protocols/protocol.ts");
  });

  it("names every file and registration point the contract's module doc names", () => {
    const named = backticked(contractDoc, /<p>|\.ts$|^BUILT_IN_FACTORIES$/).map((name) =>
      name.replace(/^src\/protocols\/<p>\//, ""),
    );
    expect(named.length).toBeGreaterThan(12);
    expect(named.filter((name) => !contributing.includes(name))).toEqual([]);
  });

  it("names only paths that exist", () => {
    const paths = backticked(contributing, /^(src|test|scripts)\/[^<>…*]+$/).map((path) =>
      path.replace(/\/$/, ""),
    );
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });
});
