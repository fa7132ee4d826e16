/**
 * `protocolOf()`: the protocol a configuration names, reported — never silently replaced — when it names
 * none.
 *
 * @module
 */
import { closestName } from "./closest-name.ts";
import type { ProtocolName, ProviderFactories } from "./provider-factory.ts";
import { providerRegistry } from "./provider-registry.ts";

/** Options of {@link protocolOf}. */
export interface ProtocolOfOptions {
  /** Receives the warning for an unusable value; unset, the warning goes nowhere (the library prints nothing). */
  warn?: ((message: string) => void) | undefined;
  /** What an absent or empty value means; default `"openai-chat"`. */
  default?: ProtocolName | undefined;
  /**
   * The host's factories, as `createProvider()` takes them: the names (and aliases) they register are known
   * beside the built-in ones; a name they remove is not.
   */
  factories?: ProviderFactories | undefined;
}

/**
 * The protocol named by a configuration value, among the registered ones (the built-in `anthropic`,
 * `openai-chat`, `openai-responses`, `bedrock`, and those `options.factories` registers).
 *
 * - Absent (`undefined`, `null`) or empty (`""`, blanks): the documented default (`"openai-chat"` unless
 *   `options.default` says otherwise), quietly — unless that default is not registered.
 * - A registered name, in any case and with surrounding blanks (`"Anthropic "`), or an alias a factory
 *   declares (the wire-protocol names `"anthropic-messages"`, `"bedrock-converse"`): that protocol.
 * - Anything else — a string naming no registered protocol, or a value that is not a string — is reported
 *   through `warn` with the closest registered name (`anthropc` → `anthropic`), and the result is
 *   `undefined`: it never silently becomes another protocol. `createProvider()` refuses such a config with
 *   a `ValidationError`.
 *
 * @example
 * ```ts
 * protocolOf(undefined);   // "openai-chat", no warning
 * protocolOf("anthropic"); // "anthropic"
 * protocolOf("anthropc");  // undefined; warns: unknown protocol "anthropc"; did you mean "anthropic"? …
 * protocolOf("gemni", { factories: { gemini } }); // undefined; warns: … did you mean "gemini"? …
 * ```
 */
export function protocolOf(value: unknown, options: ProtocolOfOptions = {}): ProtocolName | undefined {
  const warn = options.warn ?? (() => {});
  const registry = providerRegistry(options.factories);
  // Lower-cased names, then aliases (a name wins over another protocol's alias) → the registered name.
  const names = new Map<string, string>();
  for (const name of registry.keys()) names.set(name.toLowerCase(), name);
  for (const [name, factory] of registry) {
    for (const alias of factory.aliases ?? []) {
      if (!names.has(alias.toLowerCase())) names.set(alias.toLowerCase(), name);
    }
  }
  const known = `known protocols: ${[...registry.keys()].join(", ")}`;
  const byDefault = () => {
    const name = options.default ?? "openai-chat";
    if (registry.has(name)) return name;
    warn(`modelwire: no protocol given, and the default "${name}" is not registered (${known})`);
    return undefined;
  };
  if (value === undefined || value === null) return byDefault();
  if (typeof value !== "string") {
    warn(`modelwire: protocol must be a string, got ${describe(value)} (${known})`);
    return undefined;
  }
  const name = value.trim().toLowerCase();
  if (name === "") return byDefault();
  const registered = names.get(name);
  if (registered) return registered;
  const suggestion = closestName(name, [...names.keys()]);
  warn(
    `modelwire: unknown protocol ${JSON.stringify(value)}` +
      (suggestion
        ? `; did you mean "${names.get(suggestion)}"? (${known})`
        : ` (${known}; one not built in is registered with its factory: createProvider(config, { factories: { ${JSON.stringify(name)}: … } }))`),
  );
  return undefined;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  if (type === "object" || type === "function" || type === "symbol") return `a value of type ${type}`;
  return `${type} ${String(value)}`;
}
