import { z } from "zod";
import { maxRatePerSecond, minRatePerSecond } from "@/lib/schemas/rate-limits";

/**
 * The input rules of sandbox administration (lib/sandbox/applications): the console's forms
 * validate with them and its actions parse with them again.
 */

/** The sandbox's rule for application ids (also SANDBOX_APP_ID's, lib/env.ts). */
export const applicationIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

export const applicationIdSchema = z
  .string()
  .trim()
  .regex(applicationIdPattern, "Use 1 to 64 letters, digits, _ or -.");

export const createApplicationSchema = z.object({
  id: applicationIdSchema,
  name: z
    .string()
    .trim()
    .min(1, "Give the application a name.")
    .max(80, "Use at most 80 characters."),
});
export type CreateApplicationInput = z.input<typeof createApplicationSchema>;

/** A text box's value: blank means "no limit", otherwise requests per second. */
const ratePerSecond = z
  .string()
  .trim()
  .refine(
    (value) => value === "" || /^\d+(\.\d+)?$/.test(value),
    "Enter a number, or leave blank for no limit.",
  )
  .refine(
    (value) =>
      value === "" || (Number(value) >= minRatePerSecond && Number(value) <= maxRatePerSecond),
    `Use ${minRatePerSecond} to ${maxRatePerSecond.toLocaleString("en")} requests per second: below ${minRatePerSecond}, no request would get through.`,
  )
  .transform((value) => (value === "" ? undefined : Number(value)));

/** Form and action share it: the form validates the strings, the action parses them again. */
export const rateLimitSchema = z.object({
  appId: applicationIdSchema,
  get: ratePerSecond,
  write: ratePerSecond,
  /** POST /v3/migration/...; blank: migration requests count as writes. */
  migration: ratePerSecond,
});
export type RateLimitInput = z.input<typeof rateLimitSchema>;

export const applicationRefSchema = z.object({ appId: applicationIdSchema });
