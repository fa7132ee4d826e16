/**
 * Virtual keys: what the admin API takes (`POST /v1/admin/keys`, `PATCH /v1/admin/keys/:id`), what it
 * stores and shows ({@link KeyRecord}), and the key's text. A key is `sk-mw-<id>-<secret>`: the id (16 hex
 * digits) names the key's Durable Object, the secret is 32 random bytes; only the SHA-256 of the whole key
 * is stored, and the key itself is shown once, in the answer to the `POST`.
 *
 * @module
 */
import * as z from "zod/mini";
import { bytesToBase64url } from "../../core/base64.ts";
import { validate } from "../../core/validation-error.ts";

/** How a key's text starts. */
export const KEY_PREFIX = "sk-mw-";

const KEY_PATTERN = /^sk-mw-([0-9a-f]{16})-[A-Za-z0-9_-]{43}$/;
const ID_PATTERN = /^[0-9a-f]{16}$/;
/** The route names a config may use (`config.ts`), so that a key's `routes` can name any of them. */
const ROUTE_NAME = /^[A-Za-z0-9._:/-]{1,128}$/;

/** A key's spending limit: US dollars per UTC day, per UTC calendar month, or in total. */
export interface KeyBudget {
  usd: number;
  period: "day" | "month" | "total";
}

/** A virtual key as stored and shown (never its text, never its hash). */
export interface KeyRecord {
  id: string;
  name: string;
  metadata?: Record<string, string> | undefined;
  /** The route names (or aliases) the key may call; unset: all. */
  routes?: string[] | undefined;
  /** Requests per minute (a sliding 60-second window). */
  rpm?: number | undefined;
  /** Tokens per minute (input + output, a sliding 60-second window; estimated at admission, then reconciled). */
  tpm?: number | undefined;
  budget?: KeyBudget | undefined;
  /** ISO 8601: from then on the key is refused. */
  expiresAt?: string | undefined;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
}

const limit = z.number().check(z.int(), z.positive(), z.maximum(1_000_000_000));
const BudgetSchema = z.strictObject({
  usd: z.number().check(z.nonnegative(), z.maximum(1_000_000_000)),
  period: z.enum(["day", "month", "total"]),
});
const RoutesSchema = z.array(z.string().check(z.regex(ROUTE_NAME))).check(z.maxLength(256));
const MetadataSchema = z
  .record(z.string().check(z.maxLength(128)), z.string().check(z.maxLength(1024)))
  .check(z.refine((value) => Object.keys(value).length <= 32, "at most 32 entries"));
const ExpirySchema = z
  .string()
  .check(z.refine((value) => !Number.isNaN(Date.parse(value)), "not an ISO 8601 date-time"));
const NameSchema = z.string().check(z.minLength(1), z.maxLength(256));

/** `POST /v1/admin/keys`. */
const CreateSchema = z.strictObject({
  name: NameSchema,
  metadata: z.optional(MetadataSchema),
  routes: z.optional(RoutesSchema),
  rpm: z.optional(limit),
  tpm: z.optional(limit),
  budget: z.optional(BudgetSchema),
  expiresAt: z.optional(ExpirySchema),
  disabled: z.optional(z.boolean()),
});

/** `PATCH /v1/admin/keys/:id`: the fields given replace the stored ones; `null` removes an optional one. */
const PatchSchema = z.strictObject({
  name: z.optional(NameSchema),
  metadata: z.optional(z.nullable(MetadataSchema)),
  routes: z.optional(z.nullable(RoutesSchema)),
  rpm: z.optional(z.nullable(limit)),
  tpm: z.optional(z.nullable(limit)),
  budget: z.optional(z.nullable(BudgetSchema)),
  expiresAt: z.optional(z.nullable(ExpirySchema)),
  disabled: z.optional(z.boolean()),
});

/** A `PATCH` body, checked: each field given, `null` meaning "remove". */
export type KeyPatch = z.output<typeof PatchSchema>;

/** The record of a new key `id` from a `POST` body (a `ValidationError` naming each bad field otherwise). */
export function newKeyRecord(body: unknown, id: string, now: number): KeyRecord {
  const spec = validate(CreateSchema, body);
  const at = new Date(now).toISOString();
  return compact({
    id,
    name: spec.name,
    metadata: spec.metadata,
    routes: spec.routes,
    rpm: spec.rpm,
    tpm: spec.tpm,
    budget: spec.budget,
    expiresAt: spec.expiresAt === undefined ? undefined : new Date(spec.expiresAt).toISOString(),
    disabled: spec.disabled ?? false,
    createdAt: at,
    updatedAt: at,
  });
}

/** A `PATCH` body, checked (a `ValidationError` naming each bad field otherwise). */
export function keyPatchOf(body: unknown): KeyPatch {
  return validate(PatchSchema, body);
}

/** `record` with `patch` applied at `now`. */
export function patchedRecord(record: KeyRecord, patch: KeyPatch, now: number): KeyRecord {
  const next: Record<string, unknown> = { ...record };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    next[field] =
      value === null ? undefined : field === "expiresAt" ? new Date(value as string).toISOString() : value;
  }
  next.updatedAt = new Date(Math.max(now, Date.parse(record.updatedAt))).toISOString();
  return compact(next as unknown as KeyRecord);
}

/** Why a key cannot be used at `now` (disabled, expired), or undefined. */
export function keyUnusable(record: KeyRecord, now: number): string | undefined {
  if (record.disabled) return "this key is disabled";
  if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now)
    return `this key expired at ${record.expiresAt}`;
  return undefined;
}

/** Whether `record` may call `route` (its name; `aliases`: the route's other names). */
export function routeAllowed(record: KeyRecord, route: string, aliases: readonly string[] = []): boolean {
  if (record.routes === undefined) return true;
  return record.routes.includes(route) || aliases.some((alias) => record.routes!.includes(alias));
}

/** The id of a key's text, when it has the shape of one. */
export function keyIdOf(token: string): string | undefined {
  return KEY_PATTERN.exec(token)?.[1];
}

/** Whether `id` is a key id (16 hex digits). */
export function isKeyId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/** A new key: its id, its text (shown once) and the hash stored in its place. */
export async function newKey(): Promise<{ id: string; key: string; hash: string }> {
  const id = hex(crypto.getRandomValues(new Uint8Array(8)));
  const secret = bytesToBase64url(crypto.getRandomValues(new Uint8Array(32)));
  const key = `${KEY_PREFIX}${id}-${secret}`;
  return { id, key, hash: await keyHash(key) };
}

/** The SHA-256 of a key's text, hex: what is stored, and compared with what a request presents. */
export async function keyHash(key: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key))));
}

/** Two hashes compared in constant time (equal-length hex strings). */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

function hex(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += byte.toString(16).padStart(2, "0");
  return text;
}

/** The record without its unset fields (so its JSON has no `null`s, and `in` says what is set). */
function compact(record: KeyRecord): KeyRecord {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record)) if (value !== undefined) out[field] = value;
  return out as unknown as KeyRecord;
}
