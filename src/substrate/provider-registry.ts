/**
 * `providerRegistry()`: the protocols a config may name — the built-in factories with a host's
 * `factories` added or put in their place — as `createProvider()` and `protocolOf()` both read them.
 *
 * @module
 */
import { BUILT_IN_FACTORIES } from "./factories/index.ts";
import type { ProviderFactories, ProviderFactory } from "./provider-factory.ts";

/**
 * The registry `factories` make of the built-in one, in order (built-in names first, then new ones): a
 * {@link ProviderFactory} under a name registers it or replaces the one there; a bare build function keeps
 * the schema and aliases of the protocol it replaces (none, for a new name); `undefined` removes the name.
 */
export function providerRegistry(factories: ProviderFactories = {}): ReadonlyMap<string, ProviderFactory> {
  const registry = new Map<string, ProviderFactory>(Object.entries(BUILT_IN_FACTORIES));
  for (const [name, factory] of Object.entries(factories)) {
    if (factory === undefined) registry.delete(name);
    else if (typeof factory === "function") {
      const replaced = registry.get(name);
      registry.set(name, { schema: replaced?.schema ?? {}, aliases: replaced?.aliases, build: factory });
    } else registry.set(name, factory);
  }
  return registry;
}
