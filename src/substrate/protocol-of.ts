/**
 * `protocolOf()`: the protocol a configuration names, reported — never silently replaced — when it names
 * none.
 *
 * @module
 */
import { closestName } from "./closest-name.ts";

/** The protocols a configuration can name. */
export type ProtocolName = "anthropic" | "openai-chat" | "openai-responses" | "bedrock";

const PROTOCOLS: readonly ProtocolName[] = ["anthropic", "openai-chat", "openai-responses", "bedrock"];

/** Wire-protocol names (`Provider.protocol`) accepted for the configuration name they belong to. */
const ALIASES: Readonly<Record<string, ProtocolName>> = {
  "anthropic-messages": "anthropic",
  "bedrock-converse": "bedrock",
};

/** Options of {@link protocolOf}. */
export interface ProtocolOfOptions {
  /** Receives the warning for an unusable value; unset, the warning goes nowhere (the library prints nothing). */
  warn?: ((message: string) => void) | undefined;
  /** What an absent or empty value means; default `"openai-chat"`. */
  default?: ProtocolName | undefined;
}

/**
 * The protocol named by a configuration value.
 *
 * - Absent (`undefined`, `null`) or empty (`""`, blanks): the documented default (`"openai-chat"` unless
 *   `options.default` says otherwise), quietly.
 * - A known name, in any case and with surrounding blanks (`"Anthropic "`), or a wire-protocol name
 *   (`"anthropic-messages"`, `"bedrock-converse"`): that protocol.
 * - Anything else — a string naming no protocol, or a value that is not a string — is reported through
 *   `warn` with the closest known name (`anthropc` → `anthropic`), and the result is `undefined`: it never
 *   silently becomes another protocol. `createProvider()` refuses such a config with a `ValidationError`.
 *
 * @example
 * ```ts
 * protocolOf(undefined);   // "openai-chat", no warning
 * protocolOf("anthropic"); // "anthropic"
 * protocolOf("anthropc");  // undefined; warns: unknown protocol "anthropc"; did you mean "anthropic"? …
 * ```
 */
export function protocolOf(value: unknown, options: ProtocolOfOptions = {}): ProtocolName | undefined {
  const warn = options.warn ?? (() => {});
  const known = `known protocols: ${PROTOCOLS.join(", ")}`;
  if (value === undefined || value === null) return options.default ?? "openai-chat";
  if (typeof value !== "string") {
    warn(`modelwire: protocol must be a string, got ${describe(value)} (${known})`);
    return undefined;
  }
  const name = value.trim().toLowerCase();
  if (name === "") return options.default ?? "openai-chat";
  if ((PROTOCOLS as readonly string[]).includes(name)) return name as ProtocolName;
  const alias = Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined;
  if (alias) return alias;
  const suggestion = closestName(name, [...PROTOCOLS, ...Object.keys(ALIASES)]);
  const canonical = suggestion && Object.hasOwn(ALIASES, suggestion) ? ALIASES[suggestion] : suggestion;
  warn(
    `modelwire: unknown protocol ${JSON.stringify(value)}` +
      (canonical ? `; did you mean "${canonical}"?` : "") +
      ` (${known})`,
  );
  return undefined;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  if (type === "object" || type === "function" || type === "symbol") return `a value of type ${type}`;
  return `${type} ${String(value)}`;
}
