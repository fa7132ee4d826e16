/**
 * The Worker's configuration: routes (model aliases) from the `MODELWIRE_CONFIG` variable (JSON), each a
 * provider config, a fallback chain, a pool of equivalent members, or the key-less `demo` route.
 * Credentials never sit in the config: a member names the Worker secret that holds its key
 * (`apiKeySecret`), read from `env` when the route is built.
 *
 * @module
 */
import * as z from "zod/mini";
import type { Provider } from "../core/provider.ts";
import { formatPath, ValidationError } from "../core/validation-error.ts";
import { type CreateProviderOptions, createProvider } from "../substrate/provider-from-config.ts";
import { demoProvider } from "./demo.ts";

/** A route: what a model alias calls. `members` has one provider unless the route is a pool. */
export interface Route {
  alias: string;
  members: Provider[];
  /** Relative weights of the members (pool routes), for the first pin of a session. */
  weights: number[];
}

const MemberSchema = z.looseObject({
  apiKeySecret: z.optional(z.string().check(z.minLength(1))),
  /** Bedrock SigV4: the secrets holding the AWS credentials. */
  credentialsSecrets: z.optional(
    z.strictObject({
      accessKeyId: z.string().check(z.minLength(1)),
      secretAccessKey: z.string().check(z.minLength(1)),
      sessionToken: z.optional(z.string().check(z.minLength(1))),
    }),
  ),
  weight: z.optional(z.number().check(z.positive())),
});

const RouteSchema = z.union([
  z.strictObject({
    demo: z.literal(true),
    delayMs: z.optional(z.number().check(z.int(), z.nonnegative(), z.maximum(60_000))),
  }),
  z.strictObject({ pool: z.array(MemberSchema).check(z.minLength(1)) }),
  MemberSchema,
]);

/** `MODELWIRE_CONFIG`, as JSON. */
export const WorkerConfigSchema = z.strictObject({
  routes: z.record(z.string().check(z.regex(/^[A-Za-z0-9._:/-]{1,128}$/)), RouteSchema),
});
export type WorkerConfig = z.output<typeof WorkerConfigSchema>;

/**
 * Parses `MODELWIRE_CONFIG` (text or an already-parsed object) and builds every route, reading member keys
 * from `env` by secret name. Throws a `ValidationError` naming the field (`routes.claude.model: …`); a
 * missing secret is named too — its value never is.
 */
export function buildRoutes(
  raw: unknown,
  env: Record<string, unknown>,
  options: CreateProviderOptions = {},
): Map<string, Route> {
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new ValidationError([
        { path: "MODELWIRE_CONFIG", message: `not JSON: ${(error as Error).message}` },
      ]);
    }
  }
  if (value === undefined) value = { routes: {} };
  const parsed = z.safeParse(WorkerConfigSchema, value);
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
    );
  }
  const routes = new Map<string, Route>();
  for (const [alias, config] of Object.entries(parsed.data.routes)) {
    const at = `routes.${alias}`;
    if ("demo" in config && config.demo === true) {
      const delayMs = "delayMs" in config && typeof config.delayMs === "number" ? config.delayMs : undefined;
      routes.set(alias, {
        alias,
        members: [demoProvider(delayMs === undefined ? {} : { delayMs })],
        weights: [1],
      });
      continue;
    }
    const members = "pool" in config && Array.isArray(config.pool) ? config.pool : [config];
    const built = members.map((member, index) =>
      buildMember(
        member as Record<string, unknown>,
        members.length > 1 || "pool" in config ? `${at}.pool[${index}]` : at,
        env,
        options,
      ),
    );
    routes.set(alias, {
      alias,
      members: built,
      weights: members.map((member) => (typeof member.weight === "number" ? member.weight : 1)),
    });
  }
  return routes;
}

function buildMember(
  member: Record<string, unknown>,
  path: string,
  env: Record<string, unknown>,
  options: CreateProviderOptions,
): Provider {
  const config = withSecrets(member, path, env);
  try {
    return createProvider(config, options);
  } catch (error) {
    if (ValidationError.is(error)) {
      throw new ValidationError(
        error.issues.map((issue) => ({ path: `${path}.${issue.path}`, message: issue.message })),
      );
    }
    throw error;
  }
}

/** Replaces `apiKeySecret` (here and in nested fallback entries) with the secret's value; drops `weight`. */
function withSecrets(
  member: Record<string, unknown>,
  path: string,
  env: Record<string, unknown>,
): Record<string, unknown> {
  const { apiKeySecret, credentialsSecrets, weight: _weight, ...rest } = member;
  if (rest.apiKey !== undefined) {
    // Keys never sit in the config (it is a plain variable, visible to anyone who can read the Worker).
    throw new ValidationError([
      {
        path: `${path}.apiKey`,
        message: "keys do not go in MODELWIRE_CONFIG; name a Worker secret with apiKeySecret",
      },
    ]);
  }
  const config: Record<string, unknown> = { ...rest };
  const secretOf = (name: string, field: string): string => {
    const secret = env[name];
    if (typeof secret !== "string" || secret === "") {
      throw new ValidationError([
        { path: `${path}.${field}`, message: `the Worker secret ${name} is not set` },
      ]);
    }
    return secret;
  };
  if (typeof credentialsSecrets === "object" && credentialsSecrets !== null) {
    const names = credentialsSecrets as Record<string, string | undefined>;
    const credentials: Record<string, string> = {
      accessKeyId: secretOf(String(names.accessKeyId), "credentialsSecrets.accessKeyId"),
      secretAccessKey: secretOf(String(names.secretAccessKey), "credentialsSecrets.secretAccessKey"),
    };
    if (names.sessionToken)
      credentials.sessionToken = secretOf(names.sessionToken, "credentialsSecrets.sessionToken");
    const settings =
      typeof rest.settings === "object" && rest.settings !== null
        ? (rest.settings as Record<string, unknown>)
        : {};
    config.settings = { ...settings, credentials };
  }
  if (typeof apiKeySecret === "string") config.apiKey = secretOf(apiKeySecret, "apiKeySecret");
  // Bedrock bearer auth reads AWS_BEARER_TOKEN_BEDROCK from the env it is handed: hand it the secret.
  const bearer = env.AWS_BEARER_TOKEN_BEDROCK;
  if (
    rest.protocol === "bedrock" &&
    apiKeySecret === undefined &&
    typeof bearer === "string" &&
    bearer !== ""
  ) {
    const settings =
      typeof config.settings === "object" && config.settings !== null
        ? (config.settings as Record<string, unknown>)
        : {};
    config.settings = { ...settings, env: { AWS_BEARER_TOKEN_BEDROCK: bearer } };
  }
  if (Array.isArray(rest.fallback)) {
    config.fallback = rest.fallback.map((entry, index) =>
      typeof entry === "object" && entry !== null
        ? withSecrets(entry as Record<string, unknown>, `${path}.fallback[${index}]`, env)
        : entry,
    );
  }
  return config;
}
