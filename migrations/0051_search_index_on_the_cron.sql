-- New submissions are indexed for search by the cron, not in the accept batch (docs/decisions/101):
-- every moved submission whose rowid is at or below search_index.indexed_up_to is in submissions_fts;
-- those above it wait for the cron's job index-search (app/lib/storage/search-index.server.ts), and
-- search and erase read them the old way meanwhile. Counts and totals stay in the accept batch.
CREATE TABLE search_index (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  indexed_up_to INTEGER NOT NULL
);
-- Every moved row stored so far was indexed by the trigger this migration replaces.
INSERT INTO search_index (id, indexed_up_to) SELECT 1, coalesce(max(rowid), 0) FROM submissions;

DROP TRIGGER submissions_moved_insert;
CREATE TRIGGER submissions_moved_insert AFTER INSERT ON submissions WHEN NEW.state IS NOT NULL
BEGIN
  INSERT INTO submission_counts (form_id, day, state, test, n)
    VALUES (NEW.form_id, substr(NEW.received_at, 1, 10), NEW.state, NEW.test, 1)
    ON CONFLICT (form_id, day, state, test) DO UPDATE SET n = n + 1;
  INSERT INTO submission_totals (form_id, state, test, n) VALUES (NEW.form_id, NEW.state, NEW.test, 1)
    ON CONFLICT (form_id, state, test) DO UPDATE SET n = n + 1;
END;

-- A row moved by the backfill (migration 0021) is indexed at once only below the cursor: above it,
-- index-search takes it with the rest.
DROP TRIGGER submissions_state_change;
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
  INSERT INTO submissions_fts (rowid, search_text)
    SELECT NEW.rowid, coalesce(NEW.search_text, '') WHERE OLD.state IS NULL AND NEW.state IS NOT NULL
      AND NEW.rowid <= (SELECT indexed_up_to FROM search_index WHERE id = 1);
END;

-- SQLite gives a new row the largest rowid + 1, so once the newest rows are deleted (whether or not
-- they were indexed) a rowid at or below the cursor comes back: after any delete the cursor follows
-- the largest rowid down, and the next row is taken as not yet indexed. (The index entry of a deleted row goes in submissions_moved_delete; deleting
-- the entry of a row never indexed changes nothing.)
CREATE TRIGGER submissions_delete_search_cursor AFTER DELETE ON submissions
BEGIN
  UPDATE search_index SET indexed_up_to = (SELECT coalesce(max(rowid), 0) FROM submissions)
    WHERE id = 1 AND indexed_up_to > (SELECT coalesce(max(rowid), 0) FROM submissions);
END;
