import { ProgressBar } from "@/components/ui/progress-bar";
import type { PreviewProgress } from "@/lib/imports/parse/protocol";

const phaseWords: Record<PreviewProgress["phase"], string> = {
  checking: "Checking the file",
  reading: "Reading rows",
  validating: "Validating rows",
};

/** The worker's progress through the file, in the words of its phase; nothing before it reports. */
export function WorkProgress({ progress }: { progress: PreviewProgress | null }) {
  if (!progress) return null;
  return (
    <ProgressBar label={phaseWords[progress.phase]} done={progress.done} total={progress.total} />
  );
}
