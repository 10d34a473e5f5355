"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { resourceLabels } from "@/lib/imports/fields";
import { discardDraft, loadDraftSummary, type DraftSummary } from "./wizard-draft";

const stepWords: Record<DraftSummary["step"], string> = {
  choose: "choosing what to import",
  upload: "choosing the file",
  map: "mapping columns",
  preview: "previewing rows",
};

/** The unfinished import kept in this browser, if any: resumed where it was left, or discarded. */
export function DraftNotice() {
  const [draft, setDraft] = useState<DraftSummary | null>(null);

  useEffect(() => {
    let current = true;
    loadDraftSummary()
      .then((saved) => current && setDraft(saved))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, []);

  if (!draft) return null;
  return (
    <div className="mb-6">
      <Card
        title="Unfinished import"
        description="Kept in this browser until you send its rows or discard it."
      >
        <div className="flex flex-wrap items-center justify-between gap-3">
          <p className="text-sm text-slate-700" data-testid="import-draft">
            {resourceLabels[draft.resource].plural} from <strong>{draft.fileName}</strong>, left
            while {stepWords[draft.step]}
            {draft.fixes + draft.excluded > 0 &&
              ` with ${draft.fixes.toLocaleString("en-US")} fixed ${draft.fixes === 1 ? "cell" : "cells"} and ${draft.excluded.toLocaleString("en-US")} excluded ${draft.excluded === 1 ? "row" : "rows"}`}
            , saved {new Date(draft.savedAt).toLocaleString("en-US")}.
          </p>
          <div className="flex gap-2">
            <Button
              variant="ghost"
              size="sm"
              onClick={() => void discardDraft().then(() => setDraft(null))}
            >
              Discard
            </Button>
            <Link
              href="/imports/new"
              className="inline-flex h-8 items-center rounded-md bg-indigo-600 px-3 text-sm font-medium text-white shadow-sm hover:bg-indigo-500"
            >
              Resume import
            </Link>
          </div>
        </div>
      </Card>
    </div>
  );
}
