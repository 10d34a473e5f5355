"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { MAX_ROOM_INVITEES, PLAYED_USER_ID_MAX } from "@/lib/schemas/sandbox-events";
import { idInputError } from "@/lib/webhooks/test-event";
import { usePlayDirectCall, usePlayGroupCall } from "./webhook-queries";

/** Sandbox only: play whole calls, so the receiver sees real sequences of events. */
export function PlayCallsPanel() {
  const [callerId, setCallerId] = useState("alice");
  const [calleeId, setCalleeId] = useState("bob");
  const [invitees, setInvitees] = useState("bob, carol");
  const directCall = usePlayDirectCall();
  const groupCall = usePlayGroupCall();
  const inviteeIds = invitees
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  // Said beside each field, in the panel's words: the action's own would name no field.
  const callerError = idInputError(callerId.trim(), PLAYED_USER_ID_MAX);
  const calleeError = idInputError(calleeId.trim(), PLAYED_USER_ID_MAX);
  const inviteesError =
    inviteeIds.length > MAX_ROOM_INVITEES
      ? `At most ${MAX_ROOM_INVITEES} invitees.`
      : inviteeIds.some((id) => id.length > PLAYED_USER_ID_MAX)
        ? `Each id at most ${PLAYED_USER_ID_MAX} characters.`
        : undefined;

  return (
    <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
      <PlayCallSection
        name="Direct call"
        description="Dial, accept and end: three events with one call id."
        action="Play a direct call"
        play={directCall}
        canPlay={!callerError && !calleeError}
        onPlay={() => directCall.mutate({ caller_id: callerId.trim(), callee_id: calleeId.trim() })}
        fields={[
          {
            id: "play-caller-id",
            label: "caller_id",
            value: callerId,
            set: setCallerId,
            error: callerError,
          },
          {
            id: "play-callee-id",
            label: "callee_id",
            value: calleeId,
            set: setCalleeId,
            error: calleeError,
          },
        ]}
      />
      <PlayCallSection
        name="Group call"
        description="A room is created, invitees are invited, accept, enter and leave; the room is deleted."
        action="Play a group call"
        play={groupCall}
        canPlay={!callerError && !inviteesError}
        onPlay={() => groupCall.mutate({ created_by: callerId.trim(), invitee_ids: inviteeIds })}
        fields={[
          {
            id: "play-created-by",
            label: "created_by",
            value: callerId,
            set: setCallerId,
            error: callerError,
          },
          {
            id: "play-invitee-ids",
            label: "invitee_ids",
            hint: "Comma-separated.",
            value: invitees,
            set: setInvitees,
            error: inviteesError,
          },
        ]}
      />
    </div>
  );
}

type PlayedEvent = { category: string; delivered: boolean };

type PlayCallSectionProps = {
  /** The section's accessible name. */
  name: string;
  description: string;
  /** The button's words. */
  action: string;
  /** The mutation that plays the call. */
  play: { isPending: boolean; error: Error | null; data?: { events: PlayedEvent[] } };
  canPlay: boolean;
  onPlay: () => void;
  /** The call's id fields, side by side. */
  fields: Array<{
    id: string;
    label: string;
    hint?: string;
    value: string;
    set: (value: string) => void;
    /** What is wrong with the value, said beside the field. */
    error?: string;
  }>;
};

/** One kind of call: its ids, the button that plays it, and what came of it. */
function PlayCallSection({
  name,
  description,
  action,
  play,
  canPlay,
  onPlay,
  fields,
}: PlayCallSectionProps) {
  return (
    <section aria-label={name} className="space-y-3">
      <p className="text-sm text-slate-600">{description}</p>
      <div className="grid grid-cols-2 gap-3">
        {fields.map(({ id, label, hint, value, set, error }) => (
          <TextField
            key={id}
            id={id}
            label={label}
            hint={hint}
            error={error}
            value={value}
            onChange={(event) => set(event.target.value)}
          />
        ))}
      </div>
      <Button pending={play.isPending} disabled={!canPlay} onClick={onPlay}>
        {action}
      </Button>
      {play.error && <Alert tone="error">{play.error.message}</Alert>}
      {play.data && <PlayedEvents events={play.data.events} />}
    </section>
  );
}

function PlayedEvents({ events }: { events: PlayedEvent[] }) {
  const delivered = events.filter((event) => event.delivered).length;
  return (
    <Alert tone={delivered > 0 ? "success" : "info"}>
      {events.length} events played; {delivered} accepted for delivery
      {delivered < events.length && " (the others are not subscribed, or webhooks are off)"}.
    </Alert>
  );
}
