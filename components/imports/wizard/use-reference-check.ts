"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { readJson } from "@/lib/client/read-json";
import type { PreviewClient } from "@/lib/imports/parse/preview-client";
import type { PreviewCounts } from "@/lib/imports/parse/protocol";
import {
  REFERENCE_BATCH,
  REFERENCE_CHECK_MAX,
  type MissingReferences,
  type ReferenceLookup,
} from "@/lib/imports/references";
import type { ImportResource } from "@/lib/imports/types";

/** Where the preview's look-up of channels and users against what exists stands. */
export type ReferenceCheck =
  | { state: "idle" }
  | { state: "running"; done: number; total: number }
  | { state: "done"; checked: number; notChecked: number }
  | { state: "failed"; message: string };

const idle: ReferenceCheck = { state: "idle" };

/** Asks the console (POST /imports/new/references) which values of one batch exist nowhere. */
async function lookUpReferences(
  resource: ImportResource,
  batch: ReferenceLookup,
): Promise<MissingReferences> {
  const body = await readJson<Partial<MissingReferences>>("/imports/new/references", {
    body: { resource, ...batch },
  });
  return { channels: body.channels ?? [], users: body.users ?? [] };
}

/**
 * After validation and after each fix, the channels and users the rows name that have not been
 * looked up yet are sent to the server a batch at a time; the worker marks the rows that name
 * a missing one. It runs beside the administrator's work, never blocking it: a failure is
 * reported and the plan looks everything up again anyway.
 */
export function useReferenceCheck(session: number, onCounts: (counts: PreviewCounts) => void) {
  // Kept with the file it is about: a new file starts with no check shown.
  const [stored, setStored] = useState<{ session: number; check: ReferenceCheck }>({
    session,
    check: { state: "idle" },
  });
  const running = useRef(false);
  const again = useRef(false);
  const currentSession = useRef(session);
  useEffect(() => {
    currentSession.current = session;
  }, [session]);

  const run = useCallback(
    async (client: Pick<PreviewClient, "request">, resource: ImportResource) => {
      if (resource === "users") return;
      if (running.current) {
        again.current = true;
        return;
      }
      running.current = true;
      const started = currentSession.current;
      const stale = () => currentSession.current !== started;
      const setCheck = (next: ReferenceCheck | ((previous: ReferenceCheck) => ReferenceCheck)) =>
        setStored((previous) => {
          const before = previous.session === started ? previous.check : idle;
          return { session: started, check: typeof next === "function" ? next(before) : next };
        });
      try {
        do {
          again.current = false;
          const asked = await client.request({
            type: "unchecked-references",
            limit: REFERENCE_CHECK_MAX,
          });
          const total = asked.channels.length + asked.users.length;
          const notChecked = asked.more.channels + asked.more.users;
          if (total === 0) {
            setCheck((previous) =>
              previous.state === "idle" ? { state: "done", checked: 0, notChecked } : previous,
            );
            continue;
          }
          let done = 0;
          setCheck({ state: "running", done, total });
          const batches = Math.ceil(
            Math.max(asked.channels.length, asked.users.length) / REFERENCE_BATCH,
          );
          for (let batch = 0; batch < batches; batch++) {
            const slice = (values: string[]) =>
              values.slice(batch * REFERENCE_BATCH, (batch + 1) * REFERENCE_BATCH);
            const lookup = { channels: slice(asked.channels), users: slice(asked.users) };
            const missing = await lookUpReferences(resource, lookup);
            if (stale()) return;
            onCounts(await client.request({ type: "references-checked", asked: lookup, missing }));
            done += lookup.channels.length + lookup.users.length;
            setCheck({ state: "running", done, total });
          }
          setCheck({ state: "done", checked: total, notChecked });
        } while (again.current && !stale());
      } catch (error) {
        if (!stale())
          setCheck({
            state: "failed",
            message: error instanceof Error ? error.message : "The look-up failed.",
          });
      } finally {
        running.current = false;
      }
    },
    [onCounts],
  );

  return { check: stored.session === session ? stored.check : idle, run };
}
