-- The console's search folds case beyond ASCII ("ZOË" finds "Zoë"): SQLite's lower() folds ASCII only,
-- so each submission keeps its field values in a folded form, written by the Worker with the row
-- (app/lib/storage/search-text.server.ts). Rows stored before this column have none until
-- foldMissingSearchTexts fills it in; meanwhile the search reads them as before (ASCII case only).
-- Erase and retention delete it with its row.
ALTER TABLE submissions ADD COLUMN search_text TEXT;
