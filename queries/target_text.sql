-- A target in its normal form (compact JSON, hotdb/workload/targets.py) as TVM's text
-- form: the kind, then each other option in name order as -name=value, lists joined by
-- commas, empty options left out, a nested target (host) by its kind. The form hotdb
-- shows; the stored JSON is the one to compare. A value that is not a JSON object is
-- returned as it is.
--
-- @param target  a target's normal form
CREATE OR REPLACE MACRO target_text(target) AS (
    CASE WHEN target IS NULL OR NOT coalesce(json_valid(target), false) OR left(target, 1) <> '{' THEN target
         ELSE concat_ws(' ', json_extract_string(target, '$.kind'),
              nullif(array_to_string(list_transform(
                  list_filter(list_sort(json_keys(target)),
                              lambda k: k <> 'kind'
                                   AND json_extract(target, '$."' || k || '"')::VARCHAR NOT IN ('""', '[]', 'false', 'null', '{}')),
                  lambda k: '-' || k || CASE json_type(target, '$."' || k || '"')
                      WHEN 'ARRAY' THEN '=' || array_to_string(json_extract(target, '$."' || k || '"')::VARCHAR[], ',')
                      WHEN 'OBJECT' THEN '=' || coalesce(json_extract_string(target, '$."' || k || '".kind'), '{...}')
                      WHEN 'BOOLEAN' THEN ''
                      ELSE '=' || json_extract_string(target, '$."' || k || '"') END), ' '), ''))
    END
);
