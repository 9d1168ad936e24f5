-- "Send a test" submissions (submissions.test = 1) by form: few, and only these. The dashboard takes
-- their dead deliveries out of dead_delivery_counts (migration 0021), which counts every dead delivery,
-- by reading just this index and each test's own deliveries.
CREATE INDEX submissions_tests ON submissions (form_id) WHERE test = 1;
