"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
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

  return (
    <div className="grid gap-6 md:grid-cols-2">
      <section aria-label="Direct call" className="space-y-3">
        <p className="text-sm text-slate-600">
          Dial, accept and end: three events with one call id.
        </p>
        <div className="grid grid-cols-2 gap-3">
          <TextField
            id="play-caller-id"
            label="caller_id"
            value={callerId}
            onChange={(e) => setCallerId(e.target.value)}
          />
          <TextField
            id="play-callee-id"
            label="callee_id"
            value={calleeId}
            onChange={(e) => setCalleeId(e.target.value)}
          />
        </div>
        <Button
          pending={directCall.isPending}
          disabled={!callerId.trim() || !calleeId.trim()}
          onClick={() =>
            directCall.mutate({ caller_id: callerId.trim(), callee_id: calleeId.trim() })
          }
        >
          Play a direct call
        </Button>
        {directCall.isError && <Alert tone="error">{directCall.error.message}</Alert>}
        {directCall.data && <PlayedEvents events={directCall.data.events} />}
      </section>
      <section aria-label="Group call" className="space-y-3">
        <p className="text-sm text-slate-600">
          A room is created, invitees are invited, accept, enter and leave; the room is deleted.
        </p>
        <div className="grid grid-cols-2 gap-3">
          <TextField
            id="play-created-by"
            label="created_by"
            value={callerId}
            onChange={(e) => setCallerId(e.target.value)}
          />
          <TextField
            id="play-invitee-ids"
            label="invitee_ids"
            hint="Comma-separated."
            value={invitees}
            onChange={(e) => setInvitees(e.target.value)}
          />
        </div>
        <Button
          pending={groupCall.isPending}
          disabled={!callerId.trim()}
          onClick={() => groupCall.mutate({ created_by: callerId.trim(), invitee_ids: inviteeIds })}
        >
          Play a group call
        </Button>
        {groupCall.isError && <Alert tone="error">{groupCall.error.message}</Alert>}
        {groupCall.data && <PlayedEvents events={groupCall.data.events} />}
      </section>
    </div>
  );
}

function PlayedEvents({ events }: { events: Array<{ category: string; delivered: boolean }> }) {
  const delivered = events.filter((event) => event.delivered).length;
  return (
    <Alert tone={delivered > 0 ? "success" : "info"}>
      {events.length} events played; {delivered} accepted for delivery
      {delivered < events.length && " (the others are not subscribed, or webhooks are off)"}.
    </Alert>
  );
}
