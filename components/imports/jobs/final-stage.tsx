"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { actionErrorMessage } from "@/lib/actions/action-result";
import { finishMigration } from "@/lib/actions/imports";
import { targetPhrase, type TargetNaming } from "@/lib/forms/targets";
import type { FinalStage } from "@/lib/imports/jobs";
import { counted } from "@/lib/text/counted";

export type FinalStageCardProps = {
  stage: FinalStage;
  /** The target whose migration this is, named in the confirmation. */
  target: TargetNaming & { id: string };
};

const stateLabels: Record<FinalStage["state"], string> = {
  "nothing to do": "Nothing to do",
  waiting: "Waiting for the imports",
  ready: "Ready",
  "in progress": "In progress",
  done: "Done",
};

/** What the last stage does, in words: "deactivate 2 people, freeze 1 channel". */
export function finalStageWork(stage: FinalStage): string {
  const people = stage.deactivate.toDo + stage.deactivate.failed;
  const channels = stage.freeze.toDo + stage.freeze.failed;
  const parts = [
    people > 0 && `deactivate ${counted(people, "person", "people")}`,
    channels > 0 && `freeze ${counted(channels, "channel")}`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "nothing left";
}

/**
 * The migration's last stage: the deactivations and freezes kept back until the history naming
 * those people and channels is in, offered once no import is still in progress.
 */
export function FinalStageCard({ stage, target }: FinalStageCardProps) {
  const router = useRouter();
  // The stage is sent in the background: the page follows it until it is done.
  useEffect(() => {
    if (stage.state !== "in progress") return;
    const timer = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(timer);
  }, [stage.state, router]);
  const work = finalStageWork(stage);
  const senders = [
    stage.reactivated > 0 &&
      `${counted(stage.reactivated, "sender")} deactivated on the platform before, reactivated for their messages`,
    stage.createdSenders > 0 &&
      `${counted(stage.createdSenders, "unknown sender")} created for their messages`,
  ].filter(Boolean);
  return (
    <Card
      title="4. Finish the migration"
      description="Last, once every message names its people and channels: deactivations and freezes (deactivated users keep their channels)."
    >
      <div className="space-y-3 text-sm" data-testid="stage-finish">
        <p>
          <strong>{stateLabels[stage.state]}</strong>
          {` · ${counted(stage.deactivate.toDo, "deactivation")} and ${counted(stage.freeze.toDo, "freeze")} to do, ${n(stage.deactivate.done + stage.freeze.done)} done, ${n(stage.deactivate.failed + stage.freeze.failed)} failed`}
        </p>
        {senders.length > 0 && <p className="text-slate-700">Among them: {senders.join("; ")}.</p>}
        {stage.state === "waiting" && stage.waitingFor && (
          <p className="text-slate-600">
            Offered once no import is in progress: {stage.waitingFor}.
          </p>
        )}
        {stage.failures.length > 0 && (
          <ul role="alert" className="list-disc pl-5 text-red-800">
            {stage.failures.map((failure) => (
              <li key={`${failure.action}:${failure.key}`}>
                {failure.key}: {failure.message}
              </li>
            ))}
          </ul>
        )}
        {stage.state === "ready" && (
          <ConfirmDialog
            title={`Finish the migration: ${work}?`}
            tone={target.environment === "production" ? "danger" : "primary"}
            description={
              <p>
                The requests go to{" "}
                <strong data-testid="finish-target">{targetPhrase(target)}</strong>. Users are
                deactivated with <code>leave_all_when_deactivated: false</code>, so the channels
                they were in keep them as members; frozen channels take no new messages. Every
                request can be sent again safely; a failed one is tried again by finishing again.
              </p>
            }
            confirmLabel="Finish the migration"
            onConfirm={async () => {
              const message = actionErrorMessage(await finishMigration({ targetId: target.id }));
              router.refresh();
              return message;
            }}
            trigger={<Button variant="primary">Finish: {work}</Button>}
          />
        )}
      </div>
    </Card>
  );
}

const n = (value: number) => value.toLocaleString("en");
