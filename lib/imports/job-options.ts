import { z } from "zod";
import type { JobOptions } from "./types";

/**
 * A job's options as the browser sends them: read once by the server action and by the
 * wizard's draft (storage in a browser is not trusted either), so both accept the same.
 */
export const jobOptionsSchema = z
  .object({ createUnknownSenders: z.boolean().optional() })
  .strict() satisfies z.ZodType<JobOptions>;

/** The options a kind of import can take: only a messages import creates unknown senders. */
export function optionsFor(resource: string, options: JobOptions): JobOptions {
  return resource === "messages" && options.createUnknownSenders
    ? { createUnknownSenders: true }
    : {};
}
