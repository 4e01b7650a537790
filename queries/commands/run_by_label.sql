-- The run with this label. Parameters: $label.
SELECT run_id, label FROM runs WHERE label = $label
