import { z } from "zod";

const httpAddress = z
  .string()
  .trim()
  .max(2000, "Use at most 2,000 characters.")
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "https:" || url.protocol === "http:") && !url.username;
    } catch {
      return false;
    }
  }, "Enter an http:// or https:// address, e.g. https://api-APP_ID.sendbird.com.")
  .transform((value) => value.replace(/\/+$/, ""));

/** A remote platform added on the Settings page: the form and the action share it. */
export const remoteTargetSchema = z.object({
  name: z.string().trim().min(1, "Give the target a name.").max(80, "Use at most 80 characters."),
  appId: z
    .string()
    .trim()
    .min(1, "Enter the application id.")
    .max(200, "Use at most 200 characters."),
  chatBaseUrl: httpAddress,
  /** Blank: calls are answered at the chat address. */
  callsBaseUrl: z.union([z.literal("").transform(() => undefined), httpAddress]).optional(),
  apiToken: z
    .string()
    .trim()
    .min(8, "Enter the application's API token.")
    .max(500, "Use at most 500 characters.")
    // A character a header cannot carry would make fetch throw an error quoting the token,
    // which the compatibility check would then show: refused here, without repeating it.
    .regex(/^[\x21-\x7e]+$/, "An API token has letters, digits and punctuation only, no spaces."),
  environment: z.enum(["production", "sandbox"], {
    error: "Say whether this is a production platform or a sandbox.",
  }),
});
export type RemoteTargetInput = z.input<typeof remoteTargetSchema>;

export const targetRefSchema = z.object({
  targetId: z
    .string()
    .min(1, "Choose a target.")
    .max(300)
    .regex(/^(env|sandbox:[A-Za-z0-9_-]{1,64}|remote:[0-9a-f-]{36})$/, "There is no such target."),
});

/** What naming a target takes: never its token. */
export type TargetNaming = {
  name: string;
  appId: string;
  kind: "sandbox" | "remote";
  environment: "sandbox" | "production";
};

/** A target's naming and id alone, for a page to hand to its client components. */
export function targetNaming(target: TargetNaming & { id: string }): TargetNaming & { id: string } {
  const { id, name, appId, kind, environment } = target;
  return { id, name, appId, kind, environment };
}

/** How pages and confirmations name a target: its name, application and what it is. */
export function targetPhrase(target: TargetNaming): string {
  return `${target.name} (application ${target.appId}, ${targetNature(target)})`;
}

/** "the embedded sandbox", "a remote sandbox" or "a production platform". */
export function targetNature(target: {
  kind: "sandbox" | "remote";
  environment: "sandbox" | "production";
}): string {
  if (target.kind === "sandbox") return "the embedded sandbox";
  return target.environment === "sandbox" ? "a remote sandbox" : "a production platform";
}
