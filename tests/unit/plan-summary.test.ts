import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { planState } from "@/components/imports/jobs/job-view";
import { PlanSummary, RehearsalSummary } from "@/components/imports/jobs/plan-summary";
import type { JobProgress } from "@/lib/imports/jobs";
import type { EarlierMessages, JobPlan, Rehearsal } from "@/lib/imports/types";

function plan(overrides: Partial<JobPlan>): JobPlan {
  return {
    toCreate: 3,
    existing: 0,
    invalid: 0,
    excluded: 0,
    followUps: { deactivate: 0, freeze: 0, metadata: 0, invitations: 0 },
    warnings: 0,
    missingMembers: 0,
    orderChecks: [],
    lookups: { requests: 1, ms: 20 },
    ...overrides,
  };
}

/** The summary's text as an administrator reads it. */
function text(jobPlan: JobPlan): string {
  const html = renderToStaticMarkup(
    createElement(PlanSummary, { plan: jobPlan, resource: "group channels" }),
  );
  return html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&#x27;", "'")
    .replace(/\s+/g, " ");
}

describe("the plan summary's sentences", () => {
  it("agree with a count of one", () => {
    const summary = text(
      plan({
        missingMembers: 1,
        orderChecks: [{ jobId: "j1", fileName: "users.csv", status: "paused", channels: 1 }],
      }),
    );
    expect(summary).toContain("1 member id is neither in an import nor on the platform.");
    expect(summary).toContain("1 channel has members from the users import “users.csv”");
  });

  it("agree with larger counts, digits grouped", () => {
    const summary = text(
      plan({
        missingMembers: 1200,
        orderChecks: [{ jobId: "j1", fileName: "users.csv", status: "paused", channels: 2 }],
      }),
    );
    expect(summary).toContain("1,200 member ids are neither in an import nor on the platform.");
    expect(summary).toContain("2 channels have members from the users import “users.csv”");
  });
});

describe("a messages plan's senders", () => {
  const messages = (createSenders: string[], missingSenders: string[] = []) =>
    plan({
      messages: {
        channels: 1,
        requests: 1,
        firstTimestamp: null,
        lastTimestamp: null,
        byType: { MESG: 3, FILE: 0, ADMM: 0 },
        missingChannels: [],
        missingSenders,
        createSenders,
        largestChannels: [],
      },
    });

  it("counts and names the unknown senders created as users and deactivated last", () => {
    expect(text(messages(["ghost", "wraith"]))).toContain(
      "2 senders on neither the platform nor a users import: created as users before the messages (nickname = their id), deactivated in the migration's last stage: ghost, wraith.",
    );
  });

  it("names them as left out when they are not created", () => {
    const summary = text(messages([], ["ghost"]));
    expect(summary).toContain(
      "Senders and reacting people who are not users (their messages and reactions are left out): ghost.",
    );
    expect(summary).not.toContain("created as users");
  });
});

describe("the plan summary's rows with warnings", () => {
  it("says the preview's own words for them", () => {
    expect(text(plan({ warnings: 6 }))).toContain(
      "With warnings: 6 rows, counted as the preview counts them",
    );
    expect(text(plan({ warnings: 1 }))).toContain("With warnings: 1 row,");
    expect(text(plan({ warnings: 0 }))).not.toContain("With warnings");
  });
});

describe("the plan summary of a messages import with threads", () => {
  const threads = {
    replies: 4,
    roots: 2,
    rootsInEarlierImports: 0,
    reactedMessages: 3,
    reactions: 5,
    channels: 2,
    flattened: 0,
    missingRoots: 0,
    openChannelsWithReactions: [],
  };
  const messagesPlan = (extra: Partial<typeof threads> & Record<string, unknown>) =>
    plan({
      messages: {
        channels: 2,
        requests: 2,
        firstTimestamp: null,
        lastTimestamp: null,
        byType: { MESG: 10, FILE: 0, ADMM: 0 },
        missingChannels: [],
        missingSenders: [],
        largestChannels: [],
        threads: { ...threads, ...extra },
      },
    });

  it("counts the replies and reactions left out because their author will not be a member", () => {
    const summary = text(
      messagesPlan({
        repliesByNonMembers: 2,
        reactionsByNonMembers: 1200,
        nonMemberChannels: ["general"],
      }),
    );
    expect(summary).toContain(
      "2 replies and 1,200 reactions by people who will not be members of their group channel are left out",
    );
    expect(summary).toContain("general");
  });

  it("says nothing of members when every author will be one", () => {
    expect(text(messagesPlan({ repliesByNonMembers: 0, reactionsByNonMembers: 0 }))).not.toContain(
      "will not be members",
    );
  });
});

describe("a newer export's plan", () => {
  const newerPlan = (earlier: EarlierMessages) =>
    plan({
      toCreate: 2,
      existing: earlier.imported,
      messages: {
        channels: 1,
        requests: 1,
        firstTimestamp: null,
        lastTimestamp: null,
        byType: { MESG: 42, FILE: 0, ADMM: 0 },
        missingChannels: [],
        missingSenders: [],
        largestChannels: [],
        earlier,
      },
    });

  it("says the edited messages are updated and the changes the update cannot carry are kept", () => {
    const summary = text(newerPlan({ imported: 40, changed: 1, keptAsSent: 2, newReactions: 0 }));
    expect(summary).toContain(
      "40 messages were sent by an earlier import of this console and are not sent again: only what is new goes out. 1 of them was edited in the source since (text, mentions, custom type or data): once its channel is migrated, each is updated on the platform to this version. 2 of them changed in what the platform cannot update (sender, kind or file): the platform keeps what was sent first, and each has a warning in the report.",
    );
  });

  it("reads a plan made before edits were carried as it was meant: every change kept", () => {
    const summary = text(newerPlan({ imported: 40, changed: 3, newReactions: 0 }));
    expect(summary).not.toContain("edited in the source");
    expect(summary).toContain("3 of them changed in what the platform cannot update");
  });
});

describe("the rehearsal of a messages import", () => {
  const rehearsed = (threads?: Rehearsal["threads"]) =>
    renderToStaticMarkup(
      createElement(RehearsalSummary, {
        rehearsal: { state: "done", startedAt: "", created: 12, existed: 0, failed: 1, threads },
        firstRow: 2,
        resource: "messages",
        progress: null,
      }),
    )
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ");

  it("counts the replies sent and the reactions added, and what would fail", () => {
    expect(
      rehearsed({ replies: 1200, repliesFailed: 1, reactions: 30, reactionsFailed: 0 }),
    ).toContain(
      "Then the replies and reactions: 1,200 replies sent to their roots (1 would fail), 30 reactions added.",
    );
  });

  it("counts a newer export's edits updated, and those that would fail", () => {
    const threads = { replies: 2, repliesFailed: 0, reactions: 1, reactionsFailed: 0 };
    expect(rehearsed({ ...threads, edits: 2, editsFailed: 1 })).toContain(
      "2 replies sent to their roots, 1 reactions added, 2 edited messages updated (1 would fail).",
    );
    expect(rehearsed({ ...threads, edits: 0, editsFailed: 0 })).not.toContain("edited");
  });

  it("says nothing of them when there were none", () => {
    expect(rehearsed()).not.toContain("replies");
    expect(
      rehearsed({ replies: 0, repliesFailed: 0, reactions: 0, reactionsFailed: 0 }),
    ).not.toContain("replies");
  });
});

describe("the plan card of a job", () => {
  const progress = (startedAt: string | null) =>
    ({ status: startedAt ? "completed" : "planned", plan: plan({}), startedAt }) as JobProgress;

  it("says nothing has been sent only while nothing has", () => {
    expect(planState(progress(null)).description).toContain("Nothing has been sent for it.");
    const finished = planState(progress("2026-11-26T04:00:00.000Z")).description;
    expect(finished).not.toContain("Nothing has been sent");
    expect(finished).toBe("What the dry run found on the platform before the run.");
  });
});

describe("a running rehearsal", () => {
  const running = { state: "running" as const, startedAt: "2026-11-26T08:00:00.000Z" };
  const shown = (progress: Parameters<typeof RehearsalSummary>[0]["progress"]) =>
    renderToStaticMarkup(
      createElement(RehearsalSummary, {
        rehearsal: running,
        firstRow: 2,
        resource: "users",
        progress,
      }),
    )
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ");

  it("shows rows done of the total, what they came to, pace and time left, as a run does", () => {
    const text = shown({
      total: 12_000,
      done: 3_000,
      created: 2_990,
      existed: 0,
      failed: 10,
      perSecond: 150,
      secondsLeft: 60,
    });
    expect(text).toContain("Rows done 3,000 of 12,000");
    expect(text).toContain("Rows per second 150");
    expect(text).toContain("Would fail 10");
    expect(text).toContain("Time left 1 min 0 s");
    expect(text).toContain("So far: 2,990 created · 0 existed · 10 would fail");
  });

  it("says it is preparing before its rows are sent", () => {
    expect(shown(null)).toContain("Preparing the scratch application; its rows are sent next.");
  });
});
