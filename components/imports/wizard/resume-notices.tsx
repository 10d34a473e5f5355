import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import type { PreviewProgress } from "@/lib/imports/parse/protocol";
import { WorkProgress } from "./work-progress";

/** Shown instead of the steps while a saved draft's file is read again. */
export function ResumingCard({
  fileName,
  progress,
}: {
  fileName: string | undefined;
  progress: PreviewProgress | null;
}) {
  return (
    <Card title="Resuming your import">
      <div className="space-y-3">
        <p role="status" className="text-sm text-slate-700">
          Reading {fileName} again and applying your mapping and fixes…
        </p>
        <WorkProgress progress={progress} />
      </div>
    </Card>
  );
}

/** After a draft was restored, until the administrator moves on: with a way to start over. */
export function ResumedNotice({
  fileName,
  savedAt,
  onRestart,
}: {
  fileName: string | undefined;
  savedAt: number;
  onRestart: () => void;
}) {
  return (
    <Alert tone="info" title="Your unfinished import is back">
      {fileName}, as you left it {new Date(savedAt).toLocaleString("en-US")}.{" "}
      <button type="button" className="font-medium underline" onClick={onRestart}>
        Start over with another file
      </button>
    </Alert>
  );
}
