-- At most one confirmation e-mail per address per 24 h per form (docs/decisions/017-notification-kinds.md).
-- The address is kept only as a SHA-256 key, and only for the window: the maintenance Worker prunes
-- older rows every minute. delivery_id lets a retry of the same confirmation through.
CREATE TABLE confirmation_limits (
  form_id TEXT NOT NULL,
  address_key TEXT NOT NULL,           -- hex SHA-256 of form id and lower-cased address
  delivery_id TEXT NOT NULL,           -- the confirmation delivery that holds this slot
  sent_at INTEGER NOT NULL,            -- epoch ms the slot was taken
  PRIMARY KEY (form_id, address_key)
);
CREATE INDEX confirmation_limits_sent ON confirmation_limits (sent_at);

-- Erase and retention delete deliveries (app/lib/storage/purge.server.ts); a slot goes with its delivery,
-- so no trace of an erased submission is left in any kind's rows.
CREATE TRIGGER confirmation_limits_follow_delivery AFTER DELETE ON deliveries
BEGIN
  DELETE FROM confirmation_limits WHERE delivery_id = OLD.id;
END;
