-- What is done to a mapped column's values before they are read (invert a boolean, a time's
-- unit, find and replace with a pattern): the server validates every uploaded row again with
-- them, as the wizard's preview did. Imports made before have none.
ALTER TABLE "import_jobs" ADD COLUMN "transforms" jsonb DEFAULT '{}'::jsonb NOT NULL;