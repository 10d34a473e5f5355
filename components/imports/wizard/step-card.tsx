import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

export type StepCardProps = {
  title: string;
  description?: string;
  /** Back to the step before; not while the worker is busy with this one. */
  onBack: () => void;
  busy: boolean;
  children: ReactNode;
};

/** A step of the wizard after the first: its card, with the way back. */
export function StepCard({ title, description, onBack, busy, children }: StepCardProps) {
  return (
    <Card
      title={title}
      description={description}
      actions={
        <Button variant="ghost" size="sm" onClick={onBack} disabled={busy}>
          Back
        </Button>
      }
    >
      <div className="space-y-4">{children}</div>
    </Card>
  );
}
