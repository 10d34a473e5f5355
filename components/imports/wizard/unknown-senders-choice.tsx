"use client";

import { useId, useState } from "react";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";

export type UnknownSendersChoiceProps = {
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
};

/**
 * A messages import's choice to keep the messages of senders who exist nowhere: shown in the
 * preview, where the rows they sent are marked, so ticking it changes those rows at once.
 */
export function UnknownSendersChoice({ checked, onChange, disabled }: UnknownSendersChoiceProps) {
  const id = useId();
  // The click shows at once: the wizard's choice changes only once the worker has checked the
  // rows again (the box is disabled meanwhile), which on a large file takes a moment.
  const [clicked, setClicked] = useState<{ value: boolean; over: boolean } | null>(null);
  const shown = clicked && clicked.over === checked && disabled ? clicked.value : checked;
  return (
    <div className="flex items-start gap-2 rounded-md border border-slate-200 px-3 py-2">
      <Checkbox
        id={id}
        className="mt-0.5"
        checked={shown}
        disabled={disabled}
        aria-describedby={`${id}-explained`}
        onCheckedChange={(value) => {
          setClicked({ value: value === true, over: checked });
          onChange(value === true);
        }}
      />
      <div>
        <Label htmlFor={id}>Create unknown senders as deactivated users</Label>
        <p id={`${id}-explained`} className="text-xs text-slate-600">
          Senders that are neither on the platform nor in a users import are created as deactivated
          users, so their messages are kept. Each is created (its id as nickname) before the
          messages and deactivated in the migration&apos;s last stage, after them. Without this,
          their messages are errors and left out.
        </p>
      </div>
    </div>
  );
}
