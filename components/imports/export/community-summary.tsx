import { Alert } from "@/components/ui/alert";
import type { CommunitySummary as Summary } from "@/lib/imports/sources/summary";
import { exportFormatNames, type ChannelKind } from "@/lib/imports/sources/types";
import { counted } from "@/lib/text/counted";

const kindNames: Record<ChannelKind, string> = {
  public: "Public channels",
  private: "Private channels",
  dm: "DMs",
  group_dm: "Group DMs",
};

function day(ms: number | null): string {
  return ms === null ? "—" : new Date(ms).toISOString().slice(0, 10);
}

function Figure({ label, value, detail }: { label: string; value: number; detail?: string }) {
  return (
    <div className="rounded-md border border-slate-200 px-3 py-2">
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className="text-lg font-semibold text-slate-900 tabular-nums">
        {value.toLocaleString("en-US")}
      </dd>
      {detail && <dd className="text-xs text-slate-600">{detail}</dd>}
    </div>
  );
}

/** What the export holds (issue 24, item 2(a)), as the worker counted it. */
export function CommunitySummary({ summary }: { summary: Summary }) {
  const { people, messages, reactions, files, problems } = summary;
  return (
    <div className="space-y-4" data-testid="community-summary">
      <p className="text-sm text-slate-700">
        {summary.format ? exportFormatNames[summary.format] : "Export"}
        {summary.name ? (
          <>
            {" "}
            of <strong>{summary.name}</strong>
          </>
        ) : null}
        , from <span data-testid="summary-first">{day(summary.firstMessageAt)}</span> to{" "}
        <span data-testid="summary-last">{day(summary.lastMessageAt)}</span>.
      </p>
      <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        <Figure
          label="People"
          value={people.total}
          detail={`${people.active.toLocaleString("en-US")} active, ${counted(people.bots, "bot")}, ${people.deactivated.toLocaleString("en-US")} deactivated`}
        />
        <Figure
          label="Messages"
          value={messages.total}
          detail={`${counted(messages.replies, "reply", "replies")} in ${counted(messages.threads, "thread")}, ${counted(messages.notices, "notice")}`}
        />
        <Figure
          label="Reactions"
          value={reactions.total}
          detail={`on ${counted(reactions.messages, "message")}`}
        />
        <Figure
          label="Files"
          value={files.total}
          detail={`${files.available.toLocaleString("en-US")} available, ${(files.deleted + files.hidden).toLocaleString("en-US")} gone`}
        />
      </dl>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Conversations by kind</caption>
        <thead className="text-xs text-slate-600">
          <tr>
            <th className="py-1 font-medium">Conversations</th>
            <th className="py-1 text-right font-medium">How many</th>
            <th className="py-1 text-right font-medium">Members</th>
            <th className="py-1 text-right font-medium">Largest</th>
            <th className="py-1 text-right font-medium">Messages</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 tabular-nums">
          {(Object.keys(kindNames) as ChannelKind[]).map((kind) => {
            const counts = summary.conversations[kind];
            return (
              <tr key={kind} data-testid={`summary-kind-${kind}`}>
                <th scope="row" className="py-1 font-normal text-slate-800">
                  {kindNames[kind]}
                </th>
                <td className="py-1 text-right">{counts.conversations.toLocaleString("en-US")}</td>
                <td className="py-1 text-right">{counts.members.toLocaleString("en-US")}</td>
                <td className="py-1 text-right">
                  {counts.largest.toLocaleString("en-US")}
                  {counts.over100 > 0 && (
                    <span className="text-xs text-slate-600"> ({counts.over100} over 100)</span>
                  )}
                </td>
                <td className="py-1 text-right">{counts.messages.toLocaleString("en-US")}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="text-sm text-slate-700">
        {counted(summary.archived, "archived conversation")},{" "}
        {counted(messages.edited, "edited message")}, {counted(messages.mentions, "mention")},{" "}
        {counted(messages.fromBots, "message")} from bots
        {people.fromMessages > 0 &&
          `, ${counted(people.fromMessages, "person", "people")} the export does not list but its messages name`}
        .
      </p>
      {problems.total > 0 ? (
        <Alert
          tone="warning"
          title={`${counted(problems.total, "problem")} found; the rest of the export is usable`}
        >
          <ul className="mt-1 list-disc space-y-0.5 pl-5" data-testid="summary-problems">
            {problems.first.map((problem, at) => (
              <li key={at}>{problem.message}</li>
            ))}
          </ul>
          {problems.total > problems.first.length && (
            <p className="mt-1">…and {counted(problems.total - problems.first.length, "more")}.</p>
          )}
        </Alert>
      ) : (
        <p className="text-sm text-slate-700" data-testid="summary-problems">
          No problems found in the export.
        </p>
      )}
    </div>
  );
}
