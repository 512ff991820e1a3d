-- printroute schema, version 50: what printroute last did about a Shopify channel's webhook subscriptions
-- (docs/channels.md, step 5): { state, topics, reason, checkedAt, attempt, elsewhere } as JSON, null for a channel
-- printroute never subscribed (WooCommerce, or made before this version). One column, read with the channel.
ALTER TABLE channels ADD COLUMN webhook_subscription jsonb;
