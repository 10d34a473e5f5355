-- A rate limit below 1 request per second never let a request through (the bucket holds one
-- second's worth and a request takes a whole one), and the console was locked out of its own
-- sandbox. The console refuses such a limit now (lib/schemas/rate-limits.ts); one saved before
-- becomes 1, the lowest limit that lets requests through, keeping the administrator's intent.
UPDATE "sandbox_apps" SET "rate_limit" = (
  SELECT jsonb_object_agg(
    "key",
    CASE WHEN jsonb_typeof("value") = 'number' AND "value"::numeric < 1 THEN to_jsonb(1) ELSE "value" END
  )
  FROM jsonb_each("rate_limit")
)
WHERE jsonb_typeof("rate_limit") = 'object' AND EXISTS (
  SELECT 1 FROM jsonb_each("rate_limit")
  WHERE jsonb_typeof("value") = 'number' AND "value"::numeric < 1
);
