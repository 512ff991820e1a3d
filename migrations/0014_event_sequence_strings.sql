-- printroute schema, version 14: the CloudEvents `sequence` attribute of an order's events is a string of 19
-- zero-padded digits (the sequence extension: the strings' order is the events' order), as new events are written.
-- The bodies of events already kept end with `,"sequence":N}` (the last attribute, as JSON.stringify wrote
-- them); they are rewritten the same way, so the feed and redeliveries carry the same form for every event.
-- Test callbacks' events (no order) have no sequence attribute.
UPDATE order_events
   SET body = left(body, length(body) - length(',"sequence":' || sequence || '}'))
              || ',"sequence":"' || lpad(sequence::text, 19, '0') || '"}'
 WHERE order_id IS NOT NULL
   AND right(body, length(',"sequence":' || sequence || '}')) = ',"sequence":' || sequence || '}';
