-- printroute schema, version 9: Sandbox scenarios (docs/sandbox.md).

-- The scenario a Sandbox order was created with (header, metadata.sandboxScenario or the account's default,
-- resolved once at creation); null for every other order. Read by the pipeline and the simulated labs.
ALTER TABLE orders ADD COLUMN sandbox_scenario text;

-- The scenario new Sandbox orders get when they name none; only the Sandbox row uses it (Live ignores scenarios).
ALTER TABLE account_environments ADD COLUMN sandbox_scenario text;
