-- A submission's state, stored (docs/decisions/060-stored-state-counts-and-search-index.md): quarantined,
-- else dead if any delivery gave up, else pending while any is queued, else delivered; "stored" when it
-- has no delivery at all. NULL means "not yet moved": rows stored before this migration keep NULL until
-- the cron's backfill (app/lib/storage/backfill.server.ts) sets it, and the console reads them the old
-- way meanwhile. Once set, the triggers below keep it, its counts and its search index in the same
-- statement as the change, whoever makes it.
ALTER TABLE submissions ADD COLUMN state TEXT CHECK (state IN ('delivered', 'pending', 'dead', 'quarantined', 'stored'));

-- One index per filter of the console's list, each ending in (received_at, id), its keyset order.
CREATE INDEX submissions_received ON submissions (received_at, id);
CREATE INDEX submissions_state_received ON submissions (state, received_at, id);
CREATE INDEX submissions_form_state_received ON submissions (form_id, state, received_at, id);
CREATE INDEX submissions_form_received_id ON submissions (form_id, received_at, id);
DROP INDEX submissions_form_received;

-- Moved submissions per form, UTC day, state and test flag, and per form in all: what the dashboard
-- reads instead of COUNT(*). Kept by the triggers; a row at 0 stays.
CREATE TABLE submission_counts (
  form_id TEXT NOT NULL,
  day TEXT NOT NULL,                   -- YYYY-MM-DD of received_at
  state TEXT NOT NULL,
  test INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (form_id, day, state, test)
) WITHOUT ROWID;
CREATE INDEX submission_counts_day ON submission_counts (day);
CREATE TABLE submission_totals (
  form_id TEXT NOT NULL,
  state TEXT NOT NULL,
  test INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (form_id, state, test)
) WITHOUT ROWID;

-- Dead deliveries per form (the dashboard's "Dead deliveries"), for every row at once: the dead are
-- few and indexed (deliveries_due), so this one count is cheap here.
CREATE TABLE dead_delivery_counts (
  form_id TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO dead_delivery_counts (form_id, n) SELECT form_id, COUNT(*) FROM deliveries WHERE status = 'dead' GROUP BY form_id;

-- The search index over the folded search_text (migration 0010) of moved submissions. Contentless: the
-- text stays in submissions only; rowid is the submission's rowid.
CREATE VIRTUAL TABLE submissions_fts USING fts5 (search_text, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0');

CREATE TRIGGER submissions_moved_insert AFTER INSERT ON submissions WHEN NEW.state IS NOT NULL
BEGIN
  INSERT INTO submission_counts (form_id, day, state, test, n)
    VALUES (NEW.form_id, substr(NEW.received_at, 1, 10), NEW.state, NEW.test, 1)
    ON CONFLICT (form_id, day, state, test) DO UPDATE SET n = n + 1;
  INSERT INTO submission_totals (form_id, state, test, n) VALUES (NEW.form_id, NEW.state, NEW.test, 1)
    ON CONFLICT (form_id, state, test) DO UPDATE SET n = n + 1;
  INSERT INTO submissions_fts (rowid, search_text) VALUES (NEW.rowid, coalesce(NEW.search_text, ''));
END;

CREATE TRIGGER submissions_state_change AFTER UPDATE OF state ON submissions WHEN NEW.state IS NOT OLD.state
BEGIN
  UPDATE submission_counts SET n = n - 1
    WHERE OLD.state IS NOT NULL AND form_id = OLD.form_id AND day = substr(OLD.received_at, 1, 10) AND state = OLD.state
      AND test = OLD.test;
  UPDATE submission_totals SET n = n - 1
    WHERE OLD.state IS NOT NULL AND form_id = OLD.form_id AND state = OLD.state AND test = OLD.test;
  INSERT INTO submission_counts (form_id, day, state, test, n)
    SELECT NEW.form_id, substr(NEW.received_at, 1, 10), NEW.state, NEW.test, 1 WHERE NEW.state IS NOT NULL
    ON CONFLICT (form_id, day, state, test) DO UPDATE SET n = n + 1;
  INSERT INTO submission_totals (form_id, state, test, n)
    SELECT NEW.form_id, NEW.state, NEW.test, 1 WHERE NEW.state IS NOT NULL
    ON CONFLICT (form_id, state, test) DO UPDATE SET n = n + 1;
  -- Moved by the backfill: indexed now.
  INSERT INTO submissions_fts (rowid, search_text)
    SELECT NEW.rowid, coalesce(NEW.search_text, '') WHERE OLD.state IS NULL AND NEW.state IS NOT NULL;
END;

CREATE TRIGGER submissions_moved_delete AFTER DELETE ON submissions WHEN OLD.state IS NOT NULL
BEGIN
  UPDATE submission_counts SET n = n - 1
    WHERE form_id = OLD.form_id AND day = substr(OLD.received_at, 1, 10) AND state = OLD.state AND test = OLD.test;
  UPDATE submission_totals SET n = n - 1 WHERE form_id = OLD.form_id AND state = OLD.state AND test = OLD.test;
  DELETE FROM submissions_fts WHERE rowid = OLD.rowid;
END;

-- A release from quarantine (status) or any change of a delivery sets the state again from the
-- submission's own deliveries (at most a few rows, by the (submission_id, destination) index). The same
-- expression is STATE_OF in app/lib/storage/submission-state.server.ts.
CREATE TRIGGER submissions_status_state AFTER UPDATE OF status ON submissions WHEN NEW.state IS NOT NULL
BEGIN
  UPDATE submissions SET state = CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
      SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
        WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
      FROM deliveries d WHERE d.submission_id = submissions.id) END
    WHERE id = NEW.id AND state IS NOT CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
        SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
          WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
        FROM deliveries d WHERE d.submission_id = submissions.id) END;
END;

-- A new pending delivery makes a delivered or stored submission pending: the accept batch's case, which
-- stores the submission already pending and so writes nothing more here.
CREATE TRIGGER deliveries_state_insert_pending AFTER INSERT ON deliveries WHEN NEW.status = 'pending'
BEGIN
  UPDATE submissions SET state = 'pending' WHERE id = NEW.submission_id AND state IN ('delivered', 'stored');
END;

CREATE TRIGGER deliveries_state_insert_settled AFTER INSERT ON deliveries WHEN NEW.status <> 'pending'
BEGIN
  UPDATE submissions SET state = CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
      SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
        WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
      FROM deliveries d WHERE d.submission_id = submissions.id) END
    WHERE id = NEW.submission_id AND state IS NOT NULL
      AND state IS NOT CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
        SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
          WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
        FROM deliveries d WHERE d.submission_id = submissions.id) END;
  INSERT INTO dead_delivery_counts (form_id, n) SELECT NEW.form_id, 1 WHERE NEW.status = 'dead'
    ON CONFLICT (form_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER deliveries_state_update AFTER UPDATE OF status ON deliveries WHEN NEW.status IS NOT OLD.status
BEGIN
  UPDATE submissions SET state = CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
      SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
        WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
      FROM deliveries d WHERE d.submission_id = submissions.id) END
    WHERE id = NEW.submission_id AND state IS NOT NULL
      AND state IS NOT CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
        SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
          WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
        FROM deliveries d WHERE d.submission_id = submissions.id) END;
  UPDATE dead_delivery_counts SET n = n - 1 WHERE OLD.status = 'dead' AND form_id = OLD.form_id;
  INSERT INTO dead_delivery_counts (form_id, n) SELECT NEW.form_id, 1 WHERE NEW.status = 'dead'
    ON CONFLICT (form_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER deliveries_state_delete AFTER DELETE ON deliveries
BEGIN
  UPDATE submissions SET state = CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
      SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
        WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
      FROM deliveries d WHERE d.submission_id = submissions.id) END
    WHERE id = OLD.submission_id AND state IS NOT NULL
      AND state IS NOT CASE WHEN status = 'quarantined' THEN 'quarantined' ELSE (
        SELECT CASE WHEN count(*) = 0 THEN 'stored' WHEN max(d.status = 'dead') THEN 'dead'
          WHEN max(d.status = 'pending') THEN 'pending' ELSE 'delivered' END
        FROM deliveries d WHERE d.submission_id = submissions.id) END;
  UPDATE dead_delivery_counts SET n = n - 1 WHERE OLD.status = 'dead' AND form_id = OLD.form_id;
END;

-- The attempts that say a destination needs a person (settings missing: 'config'; gone: 'gone'), so the
-- dashboard finds them without reading every queued or dead delivery (destination-attention.server.ts).
CREATE INDEX delivery_attempts_attention ON delivery_attempts (id) WHERE error IN ('config', 'gone');
