-- Dead deliveries of "Send a test" submissions, per form, kept by triggers beside dead_delivery_counts
-- (migration 0021, which counts every dead delivery): the dashboard takes them away by reading one row
-- per form, never by reading every test submission (docs/decisions/099). A submission's test flag is set
-- when it is stored and never changes, and its deliveries are deleted before it (storage/purge.server.ts),
-- so each trigger finds the flag through the submission's primary key.
CREATE TABLE dead_test_delivery_counts (
  form_id TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO dead_test_delivery_counts (form_id, n)
  SELECT s.form_id, COUNT(*) FROM submissions s INDEXED BY submissions_tests
    JOIN deliveries d ON d.submission_id = s.id
  WHERE s.test = 1 AND d.status = 'dead' GROUP BY s.form_id;

CREATE TRIGGER deliveries_dead_tests_insert AFTER INSERT ON deliveries
  WHEN NEW.status = 'dead' AND (SELECT test FROM submissions WHERE id = NEW.submission_id) = 1
BEGIN
  INSERT INTO dead_test_delivery_counts (form_id, n) VALUES (NEW.form_id, 1)
    ON CONFLICT (form_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER deliveries_dead_tests_update AFTER UPDATE OF status ON deliveries
  WHEN NEW.status IS NOT OLD.status AND 'dead' IN (OLD.status, NEW.status)
    AND (SELECT test FROM submissions WHERE id = NEW.submission_id) = 1
BEGIN
  UPDATE dead_test_delivery_counts SET n = n - 1 WHERE OLD.status = 'dead' AND form_id = OLD.form_id;
  INSERT INTO dead_test_delivery_counts (form_id, n) SELECT NEW.form_id, 1 WHERE NEW.status = 'dead'
    ON CONFLICT (form_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER deliveries_dead_tests_delete AFTER DELETE ON deliveries
  WHEN OLD.status = 'dead' AND (SELECT test FROM submissions WHERE id = OLD.submission_id) = 1
BEGIN
  UPDATE dead_test_delivery_counts SET n = n - 1 WHERE form_id = OLD.form_id;
END;
