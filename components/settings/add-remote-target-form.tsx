"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { TextField } from "@/components/ui/text-field";
import { applyActionResult } from "@/lib/actions/action-result";
import { addRemoteTarget } from "@/lib/actions/targets";
import type { CompatibilityResult } from "@/lib/conformance/compatibility";
import { remoteTargetSchema, type RemoteTargetInput } from "@/lib/forms/targets";
import { CompatibilityResults } from "./compatibility-check";

const fields = ["name", "appId", "chatBaseUrl", "callsBaseUrl", "apiToken", "environment"] as const;

/**
 * Adds a remote platform as a target. The server runs the compatibility check with the token
 * before it stores anything; the token goes to the server once and never comes back.
 */
export function AddRemoteTargetForm() {
  const router = useRouter();
  const [added, setAdded] = useState<{
    name: string;
    compatibility: CompatibilityResult[];
  } | null>(null);
  const form = useForm<RemoteTargetInput>({
    resolver: zodResolver(remoteTargetSchema, undefined, { raw: true }),
    defaultValues: {
      name: "",
      appId: "",
      chatBaseUrl: "",
      callsBaseUrl: "",
      apiToken: "",
      environment: "production",
    },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setAdded(null);
    const result = await addRemoteTarget(values);
    if (applyActionResult(result, form.setError, fields)) {
      form.reset();
      setAdded({ name: result.data.target.name, compatibility: result.data.compatibility });
      router.refresh();
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add a remote platform" className="space-y-1">
      <div className="grid grid-cols-1 gap-x-4 sm:grid-cols-2">
        <TextField
          id="remote-name"
          label="Name"
          placeholder="Production"
          autoComplete="off"
          error={errors.name?.message}
          {...form.register("name")}
        />
        <TextField
          id="remote-app-id"
          label="Application id"
          inputClassName="font-mono"
          autoComplete="off"
          spellCheck={false}
          error={errors.appId?.message}
          {...form.register("appId")}
        />
        <TextField
          id="remote-chat-url"
          label="Chat base URL"
          inputClassName="font-mono"
          placeholder="https://api-APP_ID.sendbird.com"
          autoComplete="off"
          spellCheck={false}
          error={errors.chatBaseUrl?.message}
          {...form.register("chatBaseUrl")}
        />
        <TextField
          id="remote-calls-url"
          label="Calls base URL (optional)"
          inputClassName="font-mono"
          autoComplete="off"
          spellCheck={false}
          hint="Blank: calls are answered at the chat base URL."
          error={errors.callsBaseUrl?.message}
          {...form.register("callsBaseUrl")}
        />
        <TextField
          id="remote-api-token"
          label="API token"
          type="password"
          inputClassName="font-mono"
          autoComplete="new-password"
          spellCheck={false}
          hint="Kept on the server, encrypted when SWITCHBOARD_SECRET_KEY is set; never shown again."
          error={errors.apiToken?.message}
          {...form.register("apiToken")}
        />
        <div>
          <Label htmlFor="remote-environment">What it is</Label>
          <Select id="remote-environment" className="w-full" {...form.register("environment")}>
            <option value="production">A production platform</option>
            <option value="sandbox">A sandbox or test application</option>
          </Select>
          {errors.environment && (
            <p className="mt-1 text-sm text-red-700">{errors.environment.message}</p>
          )}
        </div>
      </div>
      {errors.root?.server && <Alert tone="error">{errors.root.server.message}</Alert>}
      {added && (
        <Alert tone="success" title={`${added.name} added`}>
          Choose it in the target switcher at the top to work on it. Its compatibility check:
        </Alert>
      )}
      {added && <CompatibilityResults results={added.compatibility} />}
      <div className="pt-2">
        <Button type="submit" pending={isSubmitting}>
          {isSubmitting ? "Checking the platform…" : "Check and add"}
        </Button>
      </div>
    </form>
  );
}
