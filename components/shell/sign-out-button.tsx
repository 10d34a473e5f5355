"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { Button } from "@/components/ui/button";
import { signOut } from "@/lib/actions/auth";

export function SignOutButton() {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <Button
      variant="secondary"
      size="sm"
      pending={pending}
      onClick={() =>
        startTransition(async () => {
          // On success the action redirects; if the session had already ended, go there ourselves.
          await signOut({});
          router.replace("/sign-in");
        })
      }
    >
      Sign out
    </Button>
  );
}
