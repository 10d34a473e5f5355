import { z } from "zod";

/**
 * The preview's find and replace: what the form holds (strings, as inputs do) and what it
 * hands on once checked. Finding nothing is only meaningful for whole cells, where it finds the
 * empty ones.
 */
export function findReplaceSchema(columnCount: number) {
  return z
    .object({
      column: z.coerce
        .number()
        .int()
        .min(0)
        .max(columnCount - 1, { error: "Choose one of the file's columns." }),
      find: z.string(),
      replacement: z.string(),
      wholeCell: z.boolean(),
    })
    .refine((value) => value.find !== "" || value.wholeCell, {
      path: ["find"],
      error: "Type what to find, or match whole cells only to fill the empty ones.",
    });
}

export type FindReplaceValues = z.input<ReturnType<typeof findReplaceSchema>>;
export type FindReplace = z.output<ReturnType<typeof findReplaceSchema>>;
