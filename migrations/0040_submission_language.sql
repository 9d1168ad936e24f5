-- The language the sender saw the form in (one of app/lib/i18n/languages.ts): the thank-you page and
-- the confirmation e-mail speak it. Null for submissions stored before: the form's own language.
ALTER TABLE submissions ADD COLUMN lang TEXT;
