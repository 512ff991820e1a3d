-- printroute schema, version 38: credits on orders (docs/billing.md#late-delivery-credits). A credit (a late
-- delivery on a guaranteed shipping method, later a claim's) lives in the order's document (`credits[]`) and as a
-- Refund charge with its credit note; only its id needs drawing: `crd_<n>`, from its own sequence.
CREATE SEQUENCE order_credit_id_seq;
