import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importVerificationFindings } from "@/lib/db/schema";
import {
  convertRecords,
  defaultExportChoices,
  flowColumns,
  forecastCount,
  flowMapping,
  type ExportForecast,
  type FlowResource,
} from "@/lib/imports/export-flow";
import type { JobPlan } from "@/lib/imports/jobs/plan/plan";
import { requestPlan } from "@/lib/imports/jobs/plan/plan";
import { listRows, rowCounts } from "@/lib/imports/jobs/store/jobs";
import { expected, fixtureFile, fixtureZip, type ExportFixture } from "../fixtures/exports/build";
import { readAllRecords } from "../fixtures/exports/read";
import { sharedSandbox } from "./support/http";
import {
  channelHistory,
  runJob,
  uploadJob,
  useJobDatabase,
  verifyJob,
  waitForPlan,
  type Target,
} from "./imports-harness";

/** The rows of the three imports the export flow makes of a fixture, with the default choices. */
async function exportRows(format: ExportFixture) {
  const records = await readAllRecords([fixtureFile(fixtureZip(format), `${format}.zip`)]);
  const rows: Record<FlowResource, string[][]> = { users: [], group_channels: [], messages: [] };
  const generator = convertRecords(records, defaultExportChoices);
  for (;;) {
    const step = await generator.next();
    if (step.done) return { rows, forecast: step.value as ExportForecast };
    rows[step.value.resource].push(step.value.values);
  }
}

describe.each(["slack", "discord", "mattermost"] as const)(
  "the imports a %s export becomes",
  (format) => {
    const sandbox: Target = sharedSandbox();
    const jobs = useJobDatabase();
    const counts = expected(format);

    it("plan with the export's counts, run in the platform's order, and a rerun adds nothing", async () => {
      const { rows, forecast } = await exportRows(format);
      const upload = (resource: FlowResource) =>
        uploadJob(
          jobs.handle,
          resource,
          { columns: [...flowColumns[resource]], rows: rows[resource] },
          flowMapping(resource),
        );
      const plan = async (resource: FlowResource) => {
        const job = await upload(resource);
        await requestPlan(jobs.handle.db, job.id);
        const planned = await waitForPlan(jobs.handle, sandbox, job.id);
        expect(planned.status).toBe("planned");
        return { job: planned, plan: planned.plan as JobPlan };
      };

      const people = counts.people.listed + counts.people.fromMessages;
      const users = await plan("users");
      expect(users.plan).toMatchObject({ toCreate: people, invalid: 0 });
      expect(users.plan.followUps.deactivate).toBe(counts.people.deactivated);
      expect((await runJob(jobs.handle, sandbox, users.job.id)).job.status).toBe("completed");

      const conversations = Object.values(counts.conversations).reduce((sum, n) => sum + n, 0);
      const channels = await plan("group_channels");
      expect(channels.plan).toMatchObject({ toCreate: conversations, invalid: 0 });
      expect(channels.plan.followUps.freeze).toBe(counts.archived);
      expect((await runJob(jobs.handle, sandbox, channels.job.id)).job.status).toBe("completed");
      expect(await rowCounts(jobs.handle.db, channels.job.id)).toMatchObject({
        created: conversations,
        failed: 0,
      });

      // The only refusals are those the forecast named: replies by people who left the
      // channel, which the platform takes only from members. The plan refuses them.
      const refusedReplies = forecastCount(forecast, "repliesFromNonMembers");
      const messages = await plan("messages");
      expect(messages.plan).toMatchObject({
        toCreate: counts.messages - refusedReplies,
        invalid: refusedReplies,
      });
      expect(messages.plan.messages?.threads?.repliesByNonMembers).toBe(refusedReplies);
      expect(forecast.rows.messages).toBe(counts.messages);
      const failed = await listRows(jobs.handle.db, messages.job.id, {
        states: ["invalid"],
        limit: 100,
      });
      expect(failed).toHaveLength(refusedReplies);
      for (const row of failed)
        expect(row.planIssues.map((issue) => issue.message).join(" ")).toMatch(
          /is not a member of the group channel/,
        );
      expect((await runJob(jobs.handle, sandbox, messages.job.id)).job.status).toBe("completed");
      expect(await rowCounts(jobs.handle.db, messages.job.id)).toMatchObject({
        created: counts.messages - refusedReplies,
        failed: 0,
      });

      // Each conversation holds its messages, replies included.
      const urls = new Map(
        (await listRows(jobs.handle.db, channels.job.id, { limit: 100 })).map((row) => [
          row.sourceId!,
          row.resourceKey!,
        ]),
      );
      const refused = new Set(failed.map((row) => row.rowIndex));
      const byChannel = new Map<string, number>();
      rows.messages.forEach((row, index) => {
        if (!refused.has(index)) byChannel.set(row[0]!, (byChannel.get(row[0]!) ?? 0) + 1);
      });
      for (const [source, count] of byChannel)
        expect(
          await channelHistory(sandbox, "group_channels", urls.get(source)!, { replies: true }),
          source,
        ).toHaveLength(count);

      // Verify finds the platform holding what each import sent.
      for (const job of [users.job, channels.job, messages.job]) {
        const verification = await verifyJob(jobs.handle, sandbox, job.id);
        const findings = await jobs.handle.db
          .select()
          .from(importVerificationFindings)
          .where(eq(importVerificationFindings.verificationId, verification.id));
        const found = findings.map((finding) => `${finding.key}: ${finding.reason}`).join("\n");
        expect(verification, `${job.resource}: ${verification.error ?? found}`).toMatchObject({
          state: "done",
          error: null,
          counts: { missing: 0, extra: 0, different: 0 },
        });
      }

      // The same export again: its rows find what is there, and nothing is added.
      const again = await plan("messages");
      await runJob(jobs.handle, sandbox, again.job.id);
      for (const [source, count] of byChannel)
        expect(
          await channelHistory(sandbox, "group_channels", urls.get(source)!, { replies: true }),
        ).toHaveLength(count);
    });
  },
);
