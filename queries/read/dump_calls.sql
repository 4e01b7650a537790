-- The debug dump reader: each node's run (an end paired with its begin, in the order the
-- ends came), its node in the graph (the last of that name), and for a kernel (not a
-- param) its index among the kernels, the shapes of its inputs as JSON text (NULL when an
-- input is not given by name) and the first input that is no node. `signature` hashes
-- what the kernel's row is made of, each distinct one read once by Python.
CREATE TEMP TABLE dump_calls AS
WITH named AS (
    SELECT name, op, inputs, shape, attrs FROM dump_nodes
    QUALIFY row_number() OVER (PARTITION BY name ORDER BY rowid DESC) = 1
), runs AS (
    SELECT p.event, p.name, p.prev_ts AS start_us, p.ts - p.prev_ts AS time_us, n.name IS NOT NULL AS known,
           n.name IS NOT NULL AND n.op IS DISTINCT FROM 'param' AND n.op IS DISTINCT FROM 'null' AS kernel,
           n.op, n.inputs, n.shape, n.attrs
    FROM dump_pairs AS p LEFT JOIN named AS n USING (name)
    WHERE p.ph = 'E'
), inputs AS (
    SELECT event, unnest(inputs) AS input, generate_subscripts(inputs, 1) AS pos FROM runs WHERE kernel
), shapes AS (
    SELECT i.event,
           arg_min(i.input ->> '$', i.pos) FILTER (WHERE json_type(i.input) = 'VARCHAR' AND n.name IS NULL) AS missing,
           CASE WHEN bool_and(json_type(i.input) = 'VARCHAR' AND n.shape IS NOT NULL)
                THEN '[' || string_agg(n.shape, ', ' ORDER BY i.pos) || ']' END AS input_shapes
    FROM inputs AS i LEFT JOIN named AS n ON json_type(i.input) = 'VARCHAR' AND n.name = i.input ->> '$'
    GROUP BY i.event
)
SELECT r.event, r.name, r.known, r.kernel, s.missing,
       CASE WHEN r.kernel THEN row_number() OVER (PARTITION BY r.kernel ORDER BY r.event) - 1 END AS node_index,
       r.start_us, r.time_us, r.op, r.shape, r.attrs, coalesce(len(r.inputs), 0) AS num_inputs,
       CASE WHEN s.event IS NULL THEN '[]' ELSE s.input_shapes END AS input_shapes,
       hash(r.op, r.attrs, r.shape, input_shapes, num_inputs) AS signature
FROM runs AS r LEFT JOIN shapes AS s USING (event)
