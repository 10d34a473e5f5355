import { z } from "zod";
import { ActionError } from "@/lib/actions/action-error";
import { adminRoute, freshJson } from "@/lib/actions/admin-route";
import { explained } from "@/lib/actions/import-refusals";
import { readRowRequests } from "@/lib/imports/jobs";

export const dynamic = "force-dynamic";

/** The exact HTTP requests (method, path, JSON body) the file's row `row` sends (the file's numbering). */
export const GET = adminRoute(
  z.object({
    id: z.string(),
    row: z.coerce
      .number({ error: "Give a row number." })
      .int("Give a whole row number.")
      .min(1, "Rows are numbered from 1."),
  }),
  ({ id, row }) =>
    explained(async () => {
      const found = await readRowRequests(id, { rowNumber: row });
      if (!found) throw new ActionError(`The file has no row ${row}.`);
      return freshJson(found);
    }),
);
