-- The Principal's other confirmation channel (issue 28): a notification endpoint instead of an
-- e-mail address. The step-up notifier POSTs the link and the one-time code there, signed with
-- the Standard Webhooks headers under a whsec_ secret shown once when the URL is set, kept sealed
-- (SECRETS_KEY, docs/secrets.md). A Principal has one channel at a time: an address or an endpoint.
alter table principals add column if not exists confirmation_notify_url text;
alter table principals add column if not exists confirmation_notify_secret_sealed text;
alter table principals add constraint principals_one_confirmation_channel
  check (confirmation_email is null or confirmation_notify_url is null);
