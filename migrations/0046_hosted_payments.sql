-- printroute schema, version 46: hosted payments of held orders and top-ups (docs/billing.md#card-payments-through-stripe).
-- A top-up is a provider_payments row of purpose 'topUp' that the merchant asked for with POST /v4.0/account/top-ups:
-- its link (/payments/top-ups/{id}?token=...) carries a token whose SHA-256 is kept here, and the actor that asked for
-- it is named by the 'account.toppedUp' audit entry once it is paid. Neither is needed by the other purposes.
ALTER TABLE provider_payments ADD COLUMN token_hash text;
ALTER TABLE provider_payments ADD COLUMN requested_by jsonb;
-- Until when a top-up's link takes a payment (24 hours after it was asked for); null for the other purposes.
ALTER TABLE provider_payments ADD COLUMN link_expires_at timestamptz;
