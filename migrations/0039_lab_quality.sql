-- printroute schema, version 39: the labs' side of claims (docs/labs.md#claims). A lab's photo for its answer to a
-- claim is uploaded before the answer names it, by a lab and for no account: it is the lab's (lab_code), Live only.
-- A merchant's photo keeps its account; a lab's names its lab.
ALTER TABLE claim_evidence ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE claim_evidence ADD CONSTRAINT claim_evidence_owner_check
  CHECK ((uploaded_by = 'merchant' AND account_id IS NOT NULL) OR (uploaded_by = 'lab' AND lab_code IS NOT NULL));
-- The lab's photos of one claim (its answer's), for the lab's view and the operator's.
CREATE INDEX claim_evidence_claim_idx ON claim_evidence (claim_id) WHERE claim_id IS NOT NULL;
