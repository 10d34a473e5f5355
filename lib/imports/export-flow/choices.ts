import { z } from "zod";

/**
 * What the administrator decides before an export becomes imports (issue 24, item 2(b)). Each
 * choice has a default that keeps the most of the community, and one sentence that says what
 * it does; the page shows both, and the forecast counts what each choice means for this export.
 */

export const exportChoicesSchema = z
  .object({
    /** Public and private channels of more than 100 members become supergroups. */
    supergroups: z.boolean(),
    /** Public channels may be joined without an invitation, as in the old system. */
    publicJoinable: z.boolean(),
    /** Archived channels are frozen after their history has arrived. */
    freezeArchived: z.boolean(),
    /** Join, leave, topic and other notices: admin messages, or left out. */
    notices: z.enum(["admin", "skip"]),
    /** Bots: users marked as bots in their metadata, or left out with their messages. */
    bots: z.enum(["users", "skip"]),
    /** Deleted and deactivated people: deactivated at the end (true), or left active. */
    deactivate: z.boolean(),
    /** Mentions: readable `@nickname` text plus mentioned_user_ids, or the text as it is. */
    mentions: z.enum(["readable", "as-is"]),
    /** File URLs kept as they are, or rewritten by a prefix rule after the files were re-hosted. */
    files: z.enum(["keep", "rewrite"]),
    fileUrlFrom: z.string().trim().max(2048),
    fileUrlTo: z.string().trim().max(2048),
  })
  .superRefine((choices, context) => {
    if (choices.files !== "rewrite") return;
    if (choices.fileUrlFrom === "")
      context.addIssue({
        code: "custom",
        path: ["fileUrlFrom"],
        message: "Say which beginning of the file URLs to replace.",
      });
    if (!/^https?:\/\/\S+$/.test(choices.fileUrlTo))
      context.addIssue({
        code: "custom",
        path: ["fileUrlTo"],
        message: "The new beginning must be a web address (https://…).",
      });
  });

export type ExportChoices = z.infer<typeof exportChoicesSchema>;

export const defaultExportChoices: ExportChoices = {
  supergroups: true,
  publicJoinable: true,
  freezeArchived: true,
  notices: "admin",
  bots: "users",
  deactivate: true,
  mentions: "readable",
  files: "keep",
  fileUrlFrom: "",
  fileUrlTo: "",
};

/** The sentence each choice comes with on the page, and in docs/imports-exports.md. */
export const choiceExplanations = {
  channels:
    "Public and private channels become group channels with their members; their names and topics are kept.",
  supergroups:
    "A channel of more than 100 members becomes a supergroup (up to 2,000 members); otherwise it is a group channel whose members past the first 100 are invited after it is created.",
  publicJoinable:
    "Public channels become public group channels that anyone may join without an invitation, as in the old system; private channels stay invitation-only.",
  directMessages:
    "Each DM becomes a distinct 1-to-1 group channel (the same two people always meet in it), and each group DM a group channel of its members.",
  freezeArchived:
    "Archived channels receive their history and are then frozen, so they can be read but not written in.",
  notices:
    "Join, leave, topic and other notices become admin messages in their place in the history, or are left out.",
  bots: "Bots become users marked as bots in their metadata (bot: true) and keep their messages, or are left out with their messages.",
  deactivate:
    "Deleted and deactivated people are created active so their history arrives, and are deactivated at the end; unticked, they stay active.",
  ids: "User ids and channel URLs come from the source's own ids (channel URLs derived from them), so importing a newer export finds what is already there; names are kept.",
  files:
    "File messages keep their URLs, or the beginning of each URL is replaced where the files have been re-hosted; Slack's private file URLs open only for someone signed in to that Slack.",
  mentions:
    "Mentions (<@U…> in Slack, <@…> in Discord) become readable @nickname text, and the people are listed in the message's mentioned users.",
} as const;
