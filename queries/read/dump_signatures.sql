-- The debug dump reader: each distinct kernel signature of dump_calls.sql, with what its
-- row is made of, in order of first run.
--
-- @returns signature, op, attrs, shape, input_shapes, num_inputs
SELECT signature, any_value(op) AS op, any_value(attrs) AS attrs, any_value(shape) AS shape,
       any_value(input_shapes) AS input_shapes, any_value(num_inputs) AS num_inputs
FROM dump_calls WHERE kernel
GROUP BY signature ORDER BY min(event)
