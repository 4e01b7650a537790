-- Whether a run already has this label (labels are unique over all models).
--
-- @param label  the label
-- @returns taken
SELECT count(*) > 0 AS taken FROM runs WHERE label = $label
