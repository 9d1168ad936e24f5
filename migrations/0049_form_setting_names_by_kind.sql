-- A form setting's name is any destination kind's suffix (ADR 090): the kinds' registry
-- (app/lib/settings/kinds/registry.ts) lists them, and reading ignores a row whose name it does not
-- know (app/lib/forms/console-settings.server.ts). The table keeps only the names' shape, so adding a
-- kind (Google Sheets, Airtable, an e-mail provider's settings) needs no migration. SQLite cannot
-- change a CHECK in place: the table is rebuilt with its rows.
CREATE TABLE form_settings_by_kind (
  form_id TEXT NOT NULL,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64 AND name NOT GLOB '*[^A-Z0-9_]*' AND name GLOB '[A-Z]*'),
  value TEXT NOT NULL,                 -- "v1.<key id>.<iv>.<ciphertext>", base64url
  updated_at INTEGER NOT NULL,         -- epoch ms
  PRIMARY KEY (form_id, name)
);
INSERT INTO form_settings_by_kind (form_id, name, value, updated_at) SELECT form_id, name, value, updated_at FROM form_settings;
DROP TABLE form_settings;
ALTER TABLE form_settings_by_kind RENAME TO form_settings;
