-- printroute schema, version 45: card payments through a hosted payment provider (Stripe;
-- docs/billing.md#card-payments-through-stripe). The bundled simulated provider needs none of it.

-- New ledger entries: 'card-refund' (money given back to the card the account paid with: the balance goes down by
-- what was credited to it for the refund), 'card-dispute' (the cardholder's bank took a payment back: recorded as
-- owed, the balance does not move) and 'card-dispute-won' (a dispute decided for the operator: what the dispute
-- recorded as owed is taken off again).
ALTER TABLE account_ledger DROP CONSTRAINT account_ledger_entry_check;
ALTER TABLE account_ledger ADD CONSTRAINT account_ledger_entry_check
  CHECK (entry IN ('top-up', 'card-payment', 'balance-charge', 'balance-refund', 'invoice-charge', 'invoice-refund',
                   'card-refund', 'card-dispute', 'card-dispute-won'));

-- Every payment asked of the provider: a hosted payment page (an order's payment, a top-up), a card setup page, or
-- an off-session charge of the saved card for an order. Its status moves once from 'open' to an end, in the
-- transaction that counts the money (ledger_entry_id), so a redelivered webhook or a sweeper counts nothing twice.
CREATE TABLE provider_payments (
  id bigserial PRIMARY KEY,
  provider text NOT NULL,
  account_id bigint NOT NULL REFERENCES accounts (id),
  order_id bigint REFERENCES orders (id),
  purpose text NOT NULL CHECK (purpose IN ('orderPayment', 'topUp', 'cardSetup', 'orderCharge')),
  -- Hundredths of the currency's unit; null for a card setup.
  amount_minor bigint CHECK (amount_minor IS NULL OR amount_minor > 0),
  currency text,
  -- The key printroute gave the provider: the same request always answers the same session or payment.
  idempotency_key text NOT NULL UNIQUE,
  -- The provider's hosted session (Stripe Checkout Session), its page and when it stops taking payments.
  session_id text UNIQUE,
  session_url text,
  session_expires_at timestamptz,
  -- The provider's payment (Stripe PaymentIntent) once known.
  payment_id text,
  status text NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'succeeded', 'requiresAction', 'declined', 'expired', 'failed')),
  decline_reason text,
  -- What has been refunded of it so far (printroute's refunds and the provider's own reports).
  refunded_minor bigint NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0),
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  -- The ledger entry that counted the money (card-payment or top-up); set once.
  ledger_entry_id bigint REFERENCES account_ledger (id)
);
CREATE INDEX provider_payments_open_idx ON provider_payments (created_at) WHERE status = 'open';
CREATE INDEX provider_payments_account_idx ON provider_payments (account_id, id);
CREATE INDEX provider_payments_order_idx ON provider_payments (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX provider_payments_payment_idx ON provider_payments (provider, payment_id) WHERE payment_id IS NOT NULL;

-- The provider's webhook events, each stored once by its id (a redelivery finds it and changes nothing), then
-- processed by a queued job. payload is the verified event as printroute read it (amounts as strings).
CREATE TABLE provider_events (
  provider text NOT NULL,
  event_id text NOT NULL,
  -- printroute's reading: checkoutCompleted, refunded, disputeOpened, disputeClosed or other.
  kind text NOT NULL,
  livemode boolean NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL,
  processed_at timestamptz,
  -- What processing did, in words (for the console and support).
  outcome text,
  PRIMARY KEY (provider, event_id)
);
CREATE INDEX provider_events_unprocessed_idx ON provider_events (received_at) WHERE processed_at IS NULL;

-- An account's customer at the provider and its card on file (display fields only; the card itself stays at the
-- provider). payment_method_id is null until a card setup completes.
CREATE TABLE account_payment_methods (
  account_id bigint PRIMARY KEY REFERENCES accounts (id),
  provider text NOT NULL,
  customer_id text NOT NULL,
  payment_method_id text,
  brand text,
  last4 text,
  expiry_month integer,
  expiry_year integer,
  saved_at timestamptz,
  updated_at timestamptz NOT NULL
);

-- Refunds to a card, asked of the provider by printroute ('requested' until it answers) or reported by it for a
-- refund made outside printroute ('external').
CREATE TABLE provider_refunds (
  id bigserial PRIMARY KEY,
  payment bigint NOT NULL REFERENCES provider_payments (id),
  account_id bigint NOT NULL REFERENCES accounts (id),
  order_id bigint REFERENCES orders (id),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  idempotency_key text NOT NULL UNIQUE,
  refund_id text,
  status text NOT NULL DEFAULT 'requested'
    CHECK (status IN ('requested', 'succeeded', 'pending', 'requiresAction', 'failed', 'canceled', 'external')),
  -- Why (the credit note or refund it carries out).
  reason text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  ledger_entry_id bigint REFERENCES account_ledger (id)
);
CREATE INDEX provider_refunds_payment_idx ON provider_refunds (payment);
CREATE INDEX provider_refunds_open_idx ON provider_refunds (created_at) WHERE status IN ('requested', 'pending');

-- Disputes (chargebacks) of card payments, as the provider reports them.
CREATE TABLE provider_disputes (
  provider text NOT NULL,
  dispute_id text NOT NULL,
  payment bigint REFERENCES provider_payments (id),
  account_id bigint REFERENCES accounts (id),
  order_id bigint REFERENCES orders (id),
  payment_id text NOT NULL,
  amount_minor bigint NOT NULL,
  currency text NOT NULL,
  reason text NOT NULL,
  status text NOT NULL,
  opened_at timestamptz NOT NULL,
  closed_at timestamptz,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (provider, dispute_id)
);
CREATE INDEX provider_disputes_account_idx ON provider_disputes (account_id, opened_at);
