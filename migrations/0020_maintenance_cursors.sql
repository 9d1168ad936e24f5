-- Where a scheduled job that walks something in order got to, so the next run goes on from there
-- instead of starting over: the orphan sweep of uploaded files keeps the last R2 key it judged
-- (app/lib/uploads/orphan-sweep.server.ts, docs/decisions/052). One row per job, written only forward.
CREATE TABLE maintenance_cursors (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
