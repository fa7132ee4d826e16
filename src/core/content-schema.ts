/**
 * The zod schemas of content, for the validating entry points (`parseMessages`, the gateway's neutral
 * routes). The rule itself is `checkContentPart` of `content.ts`, which the stored-history reader calls
 * too; this module only reports its verdict as zod issues. Kept apart so that code which only maps content
 * (the providers, the protocols) does not pull zod into a bundle.
 *
 * @module
 */
import * as z from "zod/mini";
import { type Content, type ContentPart, checkContentPart } from "./content.ts";

/**
 * Validates one part (see `checkContentPart`). A `data:` URL given as `url` comes out as inline data, so
 * the schema's output (and every protocol after it) sees one form.
 */
export const ContentPartSchema: z.ZodMiniType<ContentPart, ContentPart> = z.pipe(
  z.unknown(),
  z.transform((value: unknown, context) => {
    const checked = checkContentPart(value);
    if ("part" in checked) return checked.part;
    context.issues.push({
      code: "custom",
      message: checked.issue.message,
      path: checked.issue.path,
      input: value,
    });
    return z.NEVER;
  }),
) as unknown as z.ZodMiniType<ContentPart, ContentPart>;

/** Validates `content`: a string, or at most 1,000 parts. */
export const ContentSchema: z.ZodMiniType<Content, Content> = z.union([
  z.string(),
  z.array(ContentPartSchema).check(z.maxLength(1000, "at most 1000 parts")),
]) as unknown as z.ZodMiniType<Content, Content>;
