import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { JobProgressPanel } from "@/components/imports/jobs/job-progress";
import { MigrationStages } from "@/components/imports/jobs/migration-stages";
import type { JobProgress, MigrationStage, OutcomeCounts } from "@/lib/imports/jobs";

const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

const counts: OutcomeCounts = {
  created: 400,
  existed: 0,
  failed: 0,
  invalid: 0,
  excluded: 0,
  pending: 100,
  threadsFailed: 0,
};
const threads = {
  replies: 36,
  repliesDone: 12,
  reactions: 1200,
  reactionsDone: 0,
  edits: 0,
  editsDone: 0,
};

function overview(jobThreads: MigrationStage["jobs"][number]["threads"]): string {
  const stages: MigrationStage[] = [
    {
      stage: "messages",
      state: "in progress",
      jobs: [
        {
          id: "j1",
          fileName: "messages.ndjson",
          resource: "messages",
          status: "running",
          counts,
          verified: null,
          threads: jobThreads,
        },
      ],
      totals: counts,
      verification: { verified: false, at: null, differences: 0 },
    },
  ];
  return text(renderToStaticMarkup(createElement(MigrationStages, { stages })));
}

describe("the replies stage of a messages import", () => {
  it("shows on the migration overview: replies and reactions done of those planned", () => {
    expect(overview(threads)).toContain("12 of 36 replies sent, 0 of 1,200 reactions added");
  });

  it("names only what the import has, and nothing for an import without threads", () => {
    expect(overview({ ...threads, reactions: 0 })).toContain("12 of 36 replies sent");
    expect(overview({ ...threads, reactions: 0 })).not.toContain("reactions");
    expect(overview({ ...threads, replies: 1, repliesDone: 1, reactions: 0 })).toContain(
      "1 of 1 reply sent",
    );
    expect(overview(null)).not.toContain("sent");
    expect(overview(threads)).not.toContain("edited");
  });

  it("names a newer export's edited messages updated, of those planned", () => {
    expect(overview({ ...threads, replies: 0, reactions: 0, edits: 3, editsDone: 2 })).toContain(
      "2 of 3 edited messages updated",
    );
    expect(overview({ ...threads, edits: 1, editsDone: 1 })).toContain(
      "12 of 36 replies sent, 0 of 1,200 reactions added, 1 of 1 edited message updated",
    );
  });

  it("shows on the job page beside the messages", () => {
    const progress = {
      id: "j1",
      resource: "messages",
      status: "running",
      counts: { ...counts, followUpsFailed: 0 },
      toSend: 500,
      done: 400,
      remaining: 100,
      perSecond: 0,
      startedAt: null,
      finishedAt: null,
      channels: { done: 1, total: 2 },
      threads,
    } as unknown as JobProgress;
    const page = text(renderToStaticMarkup(createElement(JobProgressPanel, { progress })));
    expect(page).toContain(
      "Replies and reactions 12 of 36 replies sent, 0 of 1,200 reactions added",
    );
  });
});
