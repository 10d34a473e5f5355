import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { JobList } from "@/components/imports/jobs/job-list";
import { MigrationStages } from "@/components/imports/jobs/migration-stages";
import type { ImportJob, MigrationStage } from "@/lib/imports/jobs";
import { outcomeWords, type OutcomeCounts } from "@/lib/imports/jobs/report/outcome-words";

const counts = (overrides: Partial<OutcomeCounts>): OutcomeCounts => ({
  created: 0,
  existed: 0,
  failed: 0,
  invalid: 0,
  excluded: 0,
  pending: 0,
  threadsFailed: 0,
  ...overrides,
});
const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

// Issue 25: "Done · 45,299 created, 0 failed" while 4,706 rows were never sent hid a loss.
const lossy = counts({ created: 45_299, invalid: 4_333, excluded: 373 });

describe("a job's outcome in words", () => {
  it("names the rows left out (invalid and excluded) beside created and failed", () => {
    expect(outcomeWords(lossy, false)).toBe("45,299 created, 0 failed, 4,706 left out");
  });

  it("says 0 left out when none was, and counts existed and pending only when some are", () => {
    expect(outcomeWords(counts({ created: 3 }), false)).toBe("3 created, 0 failed, 0 left out");
    expect(outcomeWords(counts({ existed: 2, pending: 5 }), false)).toBe(
      "0 created, 2 existed, 0 failed, 0 left out, 5 to send",
    );
    expect(outcomeWords(counts({ pending: 5 }), true)).toContain("5 not sent");
  });

  it("names the messages whose replies or reactions could not be carried", () => {
    expect(outcomeWords(counts({ created: 40, threadsFailed: 3 }), false)).toBe(
      "40 created, 0 failed, 0 left out, 3 with replies or reactions not carried",
    );
  });

  it("is what the migration overview and the imports list show", () => {
    const job = {
      id: "j1",
      fileName: "messages.ndjson",
      resource: "messages",
      status: "completed",
      totalRows: 50_005,
      createdAt: new Date("2026-11-26T00:00:00Z"),
    } as ImportJob;
    const stages: MigrationStage[] = [
      {
        stage: "messages",
        state: "done",
        jobs: [{ ...job, counts: lossy, verified: null, threads: null }],
        totals: lossy,
        verification: { verified: false, at: null, differences: 0 },
      },
    ];
    const overview = text(renderToStaticMarkup(createElement(MigrationStages, { stages })));
    expect(overview).toContain("Done · 45,299 created, 0 failed, 4,706 left out");
    expect(overview).toContain("45,299 done, 4,706 left out");
    const list = text(
      renderToStaticMarkup(
        createElement(JobList, { jobs: [job], counts: new Map([["j1", lossy]]) }),
      ),
    );
    expect(list).toContain("45,299 created, 0 failed, 4,706 left out");
  });
});
