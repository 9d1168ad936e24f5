-- At most 200 console forms (MAX_CONSOLE_FORMS in app/lib/storage/forms.server.ts, docs/forms.md): every
-- isolate's form catalog holds them all, so a create past the cap is refused instead of a form vanishing
-- from the catalog. A trigger, so two creates racing at 199 cannot both pass: the losing batch, its
-- audit row included, is rolled back, and the console answers form_limit_reached.
CREATE TRIGGER forms_cap BEFORE INSERT ON forms
WHEN (SELECT COUNT(*) FROM forms) >= 200
BEGIN
  SELECT RAISE(ABORT, 'gatepost_form_limit_reached');
END;
