-- Issue 28: before migration 0290 the one-time code of a step-up travelled in the Client's
-- step_up.created event (`confirmation_code`), and stayed in plain text in the stored outbox
-- batches and the webhook delivery bodies after delivery. Those copies are scrubbed here: the code
-- becomes null, as it was for step-ups under the agent policy. (Messages already on the NATS
-- stream keep theirs until the stream's max age; docs/step-up-confirmation.md says how to purge.)
--
-- outbox_batches.events holds each envelope as a JSON string inside JSON text, so its quotes
-- are escaped there (\"); webhook_deliveries.body is the envelope's JSON text itself.
update outbox_batches
set events = regexp_replace(events, '\\"confirmation_code\\":\\"[^"\\]*\\"', '\\"confirmation_code\\":null', 'g')
where events like '%confirmation_code\\":\\"%';

update webhook_deliveries
set body = regexp_replace(body, '"confirmation_code":"[^"]*"', '"confirmation_code":null', 'g')
where event_type = 'step_up.created' and body like '%"confirmation_code":"%';
