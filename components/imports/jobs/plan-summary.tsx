import { ProgressBar } from "@/components/ui/progress-bar";
import type { RehearsalPace } from "@/lib/imports/jobs";
import { earlierChanges, type JobPlan, type Rehearsal } from "@/lib/imports/types";
import type { PlanProgress } from "@/lib/imports/types";
import { counted } from "@/lib/text/counted";
import { RehearsalProgressPanel } from "./job-progress";

const stepLabels: Record<PlanProgress["step"], (noun: string) => string> = {
  lookups: (noun) => `Asking the platform which ${noun} already exist`,
  members: () => "Checking that channel members are users",
  saving: () => "Saving the plan",
};

export type PlanInProgressProps = { progress: PlanProgress | null; resource: string };

/** The plan being made in the background: which step, and how far. */
export function PlanInProgress({ progress, resource }: PlanInProgressProps) {
  const noun = resource === "users" ? "users" : "channels";
  if (!progress) {
    return <p className="text-sm text-slate-700">Waiting for a worker to start the plan…</p>;
  }
  return (
    <div className="space-y-2">
      <ProgressBar
        label={stepLabels[progress.step](noun)}
        done={progress.done}
        total={progress.total}
      />
      <p className="text-xs text-slate-600 tabular-nums">
        {n(progress.done)} of {n(progress.total)}{" "}
        {progress.step === "members" ? "member ids" : "rows"} checked. You can leave this page; the
        plan goes on without it.
      </p>
    </div>
  );
}

export type PlanSummaryProps = { plan: JobPlan; resource: string };

const n = (value: number) => value.toLocaleString("en");

/** The dry run's outcome: what will be created, skipped and left out, and what follows. */
export function PlanSummary({ plan, resource }: PlanSummaryProps) {
  const noun = resource === "users" ? "users" : resource === "messages" ? "messages" : "channels";
  const items = [
    { label: `${noun} to create`, value: plan.toCreate, testId: "plan-create" },
    { label: "already on the platform (skipped)", value: plan.existing, testId: "plan-existing" },
    { label: "invalid (left out)", value: plan.invalid, testId: "plan-invalid" },
    { label: "excluded by you", value: plan.excluded, testId: "plan-excluded" },
  ];
  const lastStage = [
    plan.followUps.deactivate && counted(plan.followUps.deactivate, "deactivation"),
    plan.followUps.freeze && counted(plan.followUps.freeze, "freeze"),
  ].filter(Boolean);
  const followUps = [
    plan.followUps.metadata && counted(plan.followUps.metadata, "metadata update"),
    plan.followUps.invitations &&
      `${counted(plan.followUps.invitations, "invitation request")} (members past the first 100, 100 a request)`,
  ].filter(Boolean);
  return (
    <div className="space-y-3">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {items.map((item) => (
          <div key={item.label} className="rounded-md border border-slate-200 px-3 py-2">
            <dd
              className="text-xl font-semibold text-slate-900 tabular-nums"
              data-testid={item.testId}
            >
              {n(item.value)}
            </dd>
            <dt className="text-xs text-slate-600">{item.label}</dt>
          </div>
        ))}
      </dl>
      {plan.messages && <MessagePlanSummary plan={plan.messages} />}
      <p className="text-sm text-slate-700" hidden={Boolean(plan.messages)}>
        After creation: {followUps.length > 0 ? followUps.join(", ") : "no follow-up calls"}.
        {lastStage.length > 0 &&
          ` In the migration's last stage (Finish the migration, after the messages): ${lastStage.join(", ")}.`}
        {plan.warnings > 0 &&
          ` With warnings: ${counted(plan.warnings, "row")}, counted as the preview counts them (see the report).`}
        {plan.missingMembers > 0 &&
          ` ${counted(plan.missingMembers, "member id")} ${plan.missingMembers === 1 ? "is" : "are"} neither in an import nor on the platform.`}
      </p>
      {plan.orderChecks.map((check) => (
        <p key={check.jobId} role="alert" className="text-sm text-amber-800">
          {resource === "messages"
            ? `Senders or channels come from the import “${check.fileName}”, which is ${check.status}: run it to completion first, then plan this import again.`
            : `${counted(check.channels, "channel")} ${check.channels === 1 ? "has" : "have"} members from the users import “${check.fileName}”, which is ${check.status}: run it to completion first, then plan this import again.`}
        </p>
      ))}
      <p className="text-xs text-slate-500">
        Looked up with {counted(plan.lookups.requests, "request")} in{" "}
        {(plan.lookups.ms / 1000).toFixed(1)} s.
      </p>
    </div>
  );
}

const minute = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);

/** Replies refused and reactions left out because their author will not be a member. */
function nonMembers(threads: NonNullable<NonNullable<JobPlan["messages"]>["threads"]>): number {
  return (threads.repliesByNonMembers ?? 0) + (threads.reactionsByNonMembers ?? 0);
}

/** Per channel: messages, time range and requests; and the channels and senders that are missing. */
function MessagePlanSummary({ plan }: { plan: NonNullable<JobPlan["messages"]> }) {
  const { edited, keptAsSent } = earlierChanges(plan.earlier);
  return (
    <div className="space-y-2 text-sm text-slate-700" data-testid="message-plan">
      <p>
        {n(plan.channels)} channels, {n(plan.requests)} migration requests (at most 100 messages of
        one channel each): {n(plan.byType.MESG)} text, {n(plan.byType.FILE)} file and{" "}
        {n(plan.byType.ADMM)} admin messages
        {plan.firstTimestamp !== null &&
          plan.lastTimestamp !== null &&
          `, sent from ${minute(plan.firstTimestamp)} to ${minute(plan.lastTimestamp)} UTC`}
        . Every message carries a dedup id, so running the file again adds nothing.
      </p>
      {plan.earlier && plan.earlier.imported > 0 && (
        <p data-testid="earlier-messages">
          {counted(plan.earlier.imported, "message")} {plan.earlier.imported === 1 ? "was" : "were"}{" "}
          sent by an earlier import of this console and {plan.earlier.imported === 1 ? "is" : "are"}{" "}
          not sent again: only what is new goes out.
          {edited > 0 &&
            ` ${n(edited)} of them ${edited === 1 ? "was" : "were"} edited in the source since (text, mentions, custom type or data): once its channel is migrated, each is updated on the platform to this version.`}
          {keptAsSent > 0 &&
            ` ${n(keptAsSent)} of them changed in what the platform cannot update (sender, kind or file): the platform keeps what was sent first, and each has a warning in the report.`}
          {plan.earlier.newReactions > 0 &&
            ` ${n(plan.earlier.newReactions)} of them have new reactions, which are added.`}
        </p>
      )}
      {plan.threads &&
        (plan.threads.replies > 0 ||
          plan.threads.reactions > 0 ||
          nonMembers(plan.threads) > 0) && (
          <p data-testid="thread-plan">
            Then, once each channel is migrated: {n(plan.threads.replies)} replies to{" "}
            {n(plan.threads.roots + plan.threads.rootsInEarlierImports)} roots sent as replies at
            their original time, and {n(plan.threads.reactions)} reactions on{" "}
            {n(plan.threads.reactedMessages)} messages, in {n(plan.threads.channels)} channels
            {plan.threads.flattened > 0 &&
              ` (${n(plan.threads.flattened)} replies to a reply attached to their thread's root)`}
            .
            {plan.threads.missingRoots > 0 &&
              ` ${n(plan.threads.missingRoots)} replies have no root and are left out.`}
            {nonMembers(plan.threads) > 0 &&
              ` ${n(plan.threads.repliesByNonMembers ?? 0)} replies and ${n(plan.threads.reactionsByNonMembers ?? 0)} reactions by people who will not be members of their group channel are left out: the platform takes replies and reactions only from members.`}
          </p>
        )}
      <MissingList
        label="Group channels with replies or reactions by people who will not be members (left out)"
        items={plan.threads?.nonMemberChannels ?? []}
      />
      <MissingList
        label="Open channels whose messages had reactions (the platform has none there: left out)"
        items={plan.threads?.openChannelsWithReactions ?? []}
      />
      <MissingList
        label="Channels neither on the platform nor in a channel import (their messages are left out)"
        items={plan.missingChannels}
      />
      <MissingList
        label="Senders and reacting people who are not users (their messages and reactions are left out)"
        items={plan.missingSenders}
      />
      <SenderList
        label="deactivated on the platform: reactivated before the messages, deactivated again in the migration's last stage"
        items={plan.reactivateSenders ?? []}
      />
      <SenderList
        label="on neither the platform nor a users import: created as users before the messages (nickname = their id), deactivated in the migration's last stage"
        items={plan.createSenders ?? []}
      />
      {plan.largestChannels.length > 0 && (
        <table className="text-xs">
          <caption className="text-left text-slate-500">The largest channels</caption>
          <thead>
            <tr className="text-left text-slate-500">
              <th className="pr-4 font-normal">Channel</th>
              <th className="pr-4 font-normal">Messages</th>
              <th className="pr-4 font-normal">Requests</th>
              <th className="font-normal">From – to (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {plan.largestChannels.slice(0, 20).map((channel) => (
              <tr key={channel.channelUrl}>
                <td className="pr-4">
                  {channel.name && <span className="mr-2">{channel.name}</span>}
                  <span className="font-mono text-slate-500">{channel.channelUrl}</span>
                </td>
                <td className="pr-4 tabular-nums">{n(channel.messages)}</td>
                <td className="pr-4 tabular-nums">{n(channel.requests)}</td>
                <td className="tabular-nums">
                  {minute(channel.first)} – {minute(channel.last)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function MissingList({ label, items }: { label: string; items: string[] }) {
  if (items.length === 0) return null;
  return (
    <p role="alert" className="text-red-800">
      {label}: {items.slice(0, 10).join(", ")}
      {items.length > 10 && ` and ${n(items.length - 10)} more`}.
    </p>
  );
}

/** Senders the messages job prepares before sending and deactivates last, counted and named. */
function SenderList({ label, items }: { label: string; items: string[] }) {
  if (items.length === 0) return null;
  return (
    <p className="text-amber-800" data-testid="plan-senders">
      {counted(items.length, "sender")} {label}: {items.slice(0, 10).join(", ")}
      {items.length > 10 && ` and ${n(items.length - 10)} more`}.
    </p>
  );
}

/**
 * `firstRow`: the row a spreadsheet shows for row index 0 (the job's); `progress`: how far a
 * running rehearsal has got, once it sends its rows.
 */
export type RehearsalSummaryProps = {
  rehearsal: Rehearsal;
  firstRow: number;
  resource: string;
  progress: RehearsalPace | null;
};

export function RehearsalSummary({
  rehearsal,
  firstRow,
  resource,
  progress,
}: RehearsalSummaryProps) {
  if (rehearsal.state === "running")
    return (
      <div className="space-y-3">
        <p role="status" className="text-sm text-slate-700">
          Rehearsing in a scratch sandbox application…
          {progress
            ? " You can leave this page; the rehearsal goes on without it."
            : " Preparing the scratch application; its rows are sent next."}
        </p>
        {progress && <RehearsalProgressPanel pace={progress} resource={resource} />}
      </div>
    );
  if (rehearsal.state === "failed")
    return (
      <p role="alert" className="text-sm text-red-700">
        The rehearsal stopped: {rehearsal.error}
      </p>
    );
  return (
    <div className="space-y-2 text-sm" data-testid="rehearsal">
      <p>
        In a scratch application (deleted afterwards
        {rehearsal.seededUsers
          ? `, seeded with ${n(rehearsal.seededUsers)} existing users`
          : ""}): <strong>{n(rehearsal.created ?? 0)}</strong> created,{" "}
        <strong>{n(rehearsal.existed ?? 0)}</strong> existed,{" "}
        <strong>{n(rehearsal.failed ?? 0)}</strong> would fail
        {rehearsal.followUpsFailed ? `, ${n(rehearsal.followUpsFailed)} follow-ups would fail` : ""}
        .
      </p>
      {rehearsal.threads && <RehearsedThreads threads={rehearsal.threads} />}
      {(rehearsal.failures?.length ?? 0) > 0 && (
        <ul className="list-disc pl-5 text-red-800">
          {rehearsal.failures!.slice(0, 20).map((failure) => (
            <li key={failure.rowIndex}>
              Row {failure.rowIndex + firstRow}: {failure.message}
              {failure.code !== null && ` (code ${failure.code})`}
            </li>
          ))}
        </ul>
      )}
      {(rehearsal.seedFailed ?? 0) > 0 && (
        <div role="alert" className="text-red-800" data-testid="rehearsal-seed-failures">
          <p>
            {n(rehearsal.seedFailed!)} existing users could not be copied into the scratch
            application, so channels naming them may have failed here for that reason alone:
          </p>
          <ul className="list-disc pl-5">
            {rehearsal.seedFailures?.slice(0, 20).map((failure) => (
              <li key={failure.userId}>
                {failure.userId}: {failure.message}
                {failure.code !== null && ` (code ${failure.code})`}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** The replies stage in a messages rehearsal: its replies are among the messages counted above. */
function RehearsedThreads({ threads }: { threads: NonNullable<Rehearsal["threads"]> }) {
  const { replies, repliesFailed, reactions, reactionsFailed } = threads;
  const edits = threads.edits ?? 0;
  const editsFailed = threads.editsFailed ?? 0;
  if (replies + repliesFailed + reactions + reactionsFailed + edits + editsFailed === 0)
    return null;
  return (
    <p data-testid="rehearsal-threads">
      Then the replies and reactions: {n(replies)} replies sent to their roots
      {repliesFailed > 0 && ` (${n(repliesFailed)} would fail)`}, {n(reactions)} reactions added
      {reactionsFailed > 0 && ` (${n(reactionsFailed)} would fail)`}
      {edits + editsFailed > 0 &&
        `, ${counted(edits, "edited message")} updated${editsFailed > 0 ? ` (${n(editsFailed)} would fail)` : ""}`}
      .
    </p>
  );
}
